// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl
    import Dispatch
    import Foundation
    import Synchronization

    /// The loop thread of one `CurlTransport` and the only owner of its libcurl multi handle.
    ///
    /// Other threads talk to it through `inbox` (transfers to start, ids to cancel, jobs to run, a stop request)
    /// and wake it with `curl_multi_wakeup` when it sleeps. Everything else (easy handles, the transfers in
    /// flight) is local to `run()`, so it needs no lock.
    ///
    /// It is also a `TaskExecutor` (`CurlTransport.executor`): a task that prefers it runs on the loop thread,
    /// between network events, so its request goes to libcurl and its response comes back without changing threads.
    final class CurlEngine: TaskExecutor, Sendable {
        /// What other threads leave for the loop; it takes all of it at the top of each turn.
        private struct Inbox {
            var incoming: [CurlTransfer] = []
            var cancellations: [UInt64] = []
            /// Jobs of tasks that prefer this executor, in the order they were enqueued.
            var jobs: [UnownedJob] = []
            var stopping = false
            /// Set by the loop, when it found the inbox empty, right before it sleeps in `curl_multi_poll`;
            /// only then must a new entry wake it (and the first one clears it: one wake-up is enough). While
            /// it is clear the loop is busy and looks at the inbox again before it sleeps, so waking it would
            /// only cost a system call here and an extra turn there.
            var sleeping = false

            /// Whether the caller that just added an entry must wake the loop.
            mutating func takeWakeUp() -> Bool {
                defer { sleeping = false }
                return sleeping
            }
        }

        /// libcurl's multi handle. `nonisolated(unsafe)`: off the loop thread only `curl_multi_wakeup` touches
        /// it, which libcurl documents as callable from any thread, and always under the inbox's lock: the loop
        /// frees the handle only after it has seen `stopping` under that lock, so no wake-up can come after. (A
        /// job can be enqueued by a task that outlives the transport, so "no `send` in progress" is not enough.)
        nonisolated(unsafe) private let multi: UnsafeMutableRawPointer
        private let inbox = Mutex(Inbox())
        private let nextTransferID = Atomic<UInt64>(0)
        private let settings: Settings
        /// The loop thread's identity, so `stop()` can tell whether it is running on it (and must not wait
        /// for itself). The `Thread` object lives as long as the thread runs, so the identity is not reused.
        private let loopThread = Mutex<ObjectIdentifier?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        /// The configuration as libcurl options want it, worked out once rather than per request.
        struct Settings: Sendable {
            var connectTimeoutMilliseconds: Int
            var timeoutMilliseconds: Int?
            var httpVersion: Int
            var verifiesCertificates: Bool
            var caBundlePath: String?
            var maxResponseBodySize: Int?
        }

        /// libcurl's process-wide setup, done once however many transports there are (a `static let` is
        /// initialised exactly once, thread-safely). FoundationNetworking's URLSession calls it too; libcurl
        /// builds with the `threadsafe` feature (7.84 and later, as Debian's) make that concurrent call safe.
        /// libcurl is never torn down, since other code in the process may still be using it.
        private static let globalInit: CURLcode = ccurl_global_init()

        /// The longest the loop sleeps in one `curl_multi_poll`. The value hardly matters: a new request or a
        /// cancellation wakes it at once, and libcurl shortens the wait to its own next timer (timeouts).
        private static let idleWaitMilliseconds: Int32 = 60_000
        /// Idle connections kept alive, across all hosts. libcurl's default is four per transfer in flight,
        /// so a lull between bursts (or sequential use after a burst) would close the very connections the
        /// next requests need. Idle connections still close after libcurl's maximum age (118 s).
        private static let connectionCacheSize = 64
        /// Easy handles kept for reuse: enough for a busy client's requests in flight; more are freed.
        private static let maxIdleHandles = 32

        init(configuration: CurlTransport.Configuration) {
            precondition(Self.globalInit == CURLE_OK, "curl_global_init failed with code \(Self.globalInit.rawValue)")
            guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
            self.multi = multi
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, Self.connectionCacheSize)
            if let limit = configuration.maxConnectionsPerHost, limit > 0 {
                _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limit)
            }
            settings = Settings(
                connectTimeoutMilliseconds: configuration.connectTimeout.curlMilliseconds,
                timeoutMilliseconds: configuration.timeout?.curlMilliseconds,
                httpVersion: configuration.httpVersion.curlValue,
                verifiesCertificates: configuration.verifiesCertificates,
                caBundlePath: configuration.caBundlePath, maxResponseBodySize: configuration.maxResponseBodySize)
            let loop = Thread { [self] in run() }
            loop.name = "CurlTransport"
            loopThread.withLock { $0 = ObjectIdentifier(loop) }
            loop.start()
        }

        func makeTransferID() -> UInt64 {
            nextTransferID.wrappingAdd(1, ordering: .relaxed).newValue
        }

        /// Queues a transfer and wakes the loop; false (and nothing queued) when the current task is already
        /// cancelled. Checking under the lock closes the race with `cancel`: a cancellation either comes
        /// before this check (and is seen here) or queues its id after the transfer (and the loop sees both).
        func submit(_ transfer: CurlTransfer) -> Bool {
            let accepted = inbox.withLock { inbox -> Bool in
                guard !Task.isCancelled, !inbox.stopping else { return false }
                inbox.incoming.append(transfer)
                wakeIfSleeping(&inbox)
                return true
            }
            return accepted
        }

        /// Asks the loop to abort a transfer; an id that has finished already is ignored.
        func cancel(_ id: UInt64) {
            inbox.withLock { inbox in
                guard !inbox.stopping else { return }
                inbox.cancellations.append(id)
                wakeIfSleeping(&inbox)
            }
        }

        /// Ends the loop and waits until it has freed the libcurl handles, unless called from the loop thread
        /// itself (a progress callback or a job may hold the last reference to the transport), which then
        /// finishes on its own right after. Jobs still queued, and any enqueued later, go on on the global
        /// concurrent executor.
        func stop() {
            inbox.withLock { inbox in
                inbox.stopping = true
                curl_multi_wakeup(multi)
            }
            if loopThread.withLock({ $0 }) != ObjectIdentifier(Thread.current) { finished.wait() }
        }

        /// Runs the job on the loop thread, at the top of its next turn; once the loop has stopped, on the global
        /// concurrent executor, so that no task is left waiting.
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let accepted = inbox.withLock { inbox -> Bool in
                guard !inbox.stopping else { return false }
                inbox.jobs.append(job)
                wakeIfSleeping(&inbox)
                return true
            }
            if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        }

        /// Wakes the loop if it said it sleeps; called under the inbox's lock (see `multi`).
        private func wakeIfSleeping(_ inbox: inout Inbox) {
            if inbox.takeWakeUp() { curl_multi_wakeup(multi) }
        }

        // MARK: The loop thread

        private func run() {
            var active: [UInt64: CurlTransfer] = [:]
            var idle: [CurlEasy] = []
            var incoming: [CurlTransfer] = []
            var cancellations: [UInt64] = []
            var jobs: [UnownedJob] = []
            var stillRunning: Int32 = 0
            var queued: Int32 = 0

            /// Takes back the easy handle of a transfer that is over (and out of the multi handle), reset for reuse.
            func release(_ transfer: CurlTransfer) {
                guard let easy = transfer.easy else { return }
                transfer.easy = nil
                curl_easy_reset(easy.handle)
                if idle.count < Self.maxIdleHandles { idle.append(easy) }
            }

            while true {
                // Jobs first: a task that runs here usually ends by sending its next request, which this turn
                // then starts without waiting for another.
                inbox.withLock { swap(&jobs, &$0.jobs) }
                for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
                jobs.removeAll(keepingCapacity: true)

                let stopping = inbox.withLock { inbox -> Bool in
                    swap(&incoming, &inbox.incoming)
                    swap(&cancellations, &inbox.cancellations)
                    // Awake, whatever woke it: callers need not wake it again until it says it sleeps.
                    inbox.sleeping = false
                    return inbox.stopping
                }
                if stopping { break }

                for transfer in incoming {
                    guard let easy = idle.popLast() ?? CurlEasy() else {
                        transfer.fail(BinderyError(kind: .connection, message: "curl_easy_init failed (out of memory)"))
                        continue
                    }
                    if let failure = transfer.attach(to: easy, settings: settings) {
                        release(transfer)
                        transfer.fail(failure)
                        continue
                    }
                    let added = curl_multi_add_handle(multi, easy.handle)
                    guard added == CURLM_OK else {
                        release(transfer)
                        let text = String(cString: curl_multi_strerror(added))
                        transfer.fail(BinderyError(kind: .connection, message: "cannot start the request (\(text))"))
                        continue
                    }
                    active[transfer.id] = transfer
                }
                incoming.removeAll(keepingCapacity: true)

                for id in cancellations {
                    guard let transfer = active.removeValue(forKey: id), let easy = transfer.easy else { continue }
                    // Removing the handle aborts the transfer there and then; libcurl closes its connection.
                    curl_multi_remove_handle(multi, easy.handle)
                    release(transfer)
                    transfer.fail(CurlTransfer.cancelledError)
                }
                cancellations.removeAll(keepingCapacity: true)

                curl_multi_perform(multi, &stillRunning)

                while let message = curl_multi_info_read(multi, &queued) {
                    // `message` is only valid until its handle leaves the multi handle, so everything is read first.
                    guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else {
                        continue
                    }
                    let code = message.pointee.data.result
                    var context: UnsafeMutableRawPointer?
                    _ = ccurl_easy_getinfo_ptr(handle, CURLINFO_PRIVATE, &context)
                    guard let context else { continue }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    active.removeValue(forKey: transfer.id)
                    let result = transfer.result(of: code)
                    curl_multi_remove_handle(multi, handle)
                    // Resume first, recycle after: the caller's next request can be on its way meanwhile.
                    transfer.complete(result)
                    release(transfer)
                }

                // What arrived while this turn ran is taken at once rather than after a wake-up through the
                // poll; the loop sleeps only when there is nothing, and says so under the same lock.
                let sleeps = inbox.withLock { inbox -> Bool in
                    inbox.sleeping =
                        inbox.incoming.isEmpty && inbox.cancellations.isEmpty && inbox.jobs.isEmpty && !inbox.stopping
                    return inbox.sleeping
                }
                if sleeps { curl_multi_poll(multi, nil, 0, Self.idleWaitMilliseconds, nil) }
            }

            for transfer in active.values {
                if let easy = transfer.easy { curl_multi_remove_handle(multi, easy.handle) }
                release(transfer)
                transfer.fail(CurlTransfer.cancelledError)
            }
            for transfer in incoming { transfer.fail(CurlTransfer.cancelledError) }
            // What was queued after the last turn (nothing, normally; `stopping` keeps anything new out): transfers
            // are failed, not left hanging, and the jobs of tasks that preferred this executor go on on the global one.
            let (lateTransfers, lateJobs) = inbox.withLock { inbox in
                defer { (inbox.incoming, inbox.jobs) = ([], []) }
                return (inbox.incoming, inbox.jobs)
            }
            for transfer in lateTransfers { transfer.fail(CurlTransfer.cancelledError) }
            for job in lateJobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
            active.removeAll()
            idle.removeAll()  // curl_easy_cleanup, before the multi handle goes
            curl_multi_cleanup(multi)
            finished.signal()
        }
    }

    extension Duration {
        /// The duration in whole milliseconds for a libcurl option, at least 1: libcurl reads 0 as "no limit".
        var curlMilliseconds: Int {
            let (seconds, attoseconds) = components
            let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
            guard !milliseconds.overflow else { return seconds > 0 ? Int(Int32.max) : 1 }
            let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
            return Int(min(max(total, 1), Int64(Int32.max)))
        }
    }
#endif
