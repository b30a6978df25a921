import Foundation
import HTTPTypes
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport over Foundation's `URLSession`: the default on Apple platforms (and on Linux built with
/// `BINDERY_NO_CURL=1`), an alternative to libcurl on Linux.
///
/// Redirects are handed back to the client's middleware rather than followed, so credentials are
/// handled the same way as over libcurl. A download to a file (`TransferOptions.downloadPath`) streams to a
/// temporary file and is moved into place only when it is complete; `TransferOptions.progress` hears the bytes sent
/// and received. Such watched transfers run in a session of their own (see `watched`), the others share one.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(configuration: URLSessionConfiguration = .default) {
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: TransportRequest) async throws -> APIResponse {
        guard let url = request.head.url else {
            throw BinderyError(kind: .connection, message: "the request has no URL")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.head.method.rawValue
        for field in request.head.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        // A file's length up front, as libcurl sends it: without it Linux's URLSession sends the file chunked, which
        // upload endpoints refuse and the loopback test servers never finished reading under load.
        if case .file? = request.body, request.head.headerFields[.contentLength] == nil, let count = request.body?.count
        {
            urlRequest.setValue(String(count), forHTTPHeaderField: "Content-Length")
        }
        if let timeout = request.options.timeout {
            urlRequest.timeoutInterval =
                Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
        let download = request.options.downloadPath
        var data: Data
        let response: URLResponse
        do {
            if download != nil || request.options.progress != nil {
                (data, response) = try await watched(
                    urlRequest, body: request.body, to: download, options: request.options)
            } else {
                switch request.body {
                case .bytes(let bytes)?: (data, response) = try await session.upload(for: urlRequest, from: Data(bytes))
                case .file(let path)?:
                    (data, response) = try await session.upload(for: urlRequest, fromFile: URL(fileURLWithPath: path))
                case nil: (data, response) = try await session.data(for: urlRequest)
                }
            }
        } catch let error as URLError {
            throw Self.bindery(error)
        } catch let error as BinderyError {
            throw error
        } catch {
            throw BinderyError(kind: .connection, message: "the exchange failed: \(error)", underlying: error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw BinderyError(kind: .connection, message: "the response is not HTTP")
        }
        // A request with a body that answers into a file (a download task has put its own file in place already).
        if let download, request.body != nil, (200..<300).contains(http.statusCode) {
            try Self.write(data, to: download)
            data = Data()
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            if let text = name as? String, let name = HTTPField.Name(text), let value = value as? String {
                fields.append(HTTPField(name: name, value: value))
            }
        }
        return APIResponse(status: HTTPResponse.Status(code: http.statusCode), headers: fields, body: Array(data))
    }

    /// A transfer someone watches (its progress) or that ends in a file, driven by a delegate of its own session
    /// rather than by the async `data`/`upload`/`download(for:delegate:)`: on Linux those write a download twice or
    /// never finish when given a task delegate, and on some Apple platforms a download reports no `didWriteData`.
    /// A session's own delegate is the path every platform implements; the session ends with the transfer, so such
    /// transfers do not share connections. The body of a download that is not a success comes back in memory.
    private func watched(
        _ request: URLRequest, body: RequestBody?, to destination: String?, options: TransferOptions
    ) async throws -> (Data, URLResponse) {
        let delegate = TransferDelegate(destination: destination, progress: options.progress)
        // `configuration` is a copy of the shared session's: the caller's object may change after init.
        let session = URLSession(configuration: self.session.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task: URLSessionTask
        switch body {
        case .bytes(let bytes)?: task = session.uploadTask(with: request, from: Data(bytes))
        case .file(let path)?: task = session.uploadTask(with: request, fromFile: URL(fileURLWithPath: path))
        case nil where destination != nil: task = session.downloadTask(with: request)
        case nil: task = session.dataTask(with: request)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(task, continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Writes an answer held in memory to `destination` as a download would land: whole, or not at all.
    static func write(_ data: Data, to destination: String) throws(BinderyError) {
        let beside = URL(fileURLWithPath: destination + ".bindery-download")
        do { try data.write(to: beside) } catch {
            throw BinderyError(kind: .storage, message: "cannot write \(beside.path): \(error)", underlying: error)
        }
        try move(beside, to: destination)
    }

    /// Puts a finished download in place with rename(2), which replaces an existing file in one step: a reader
    /// sees the old file or the new one, never half. A temporary folder on another volume is copied beside the
    /// destination first.
    static func move(_ file: URL, to destination: String) throws(BinderyError) {
        if rename(file.path, destination) == 0 { return }
        let beside = destination + ".bindery-download"
        do {
            try? FileManager.default.removeItem(atPath: beside)
            try FileManager.default.copyItem(atPath: file.path, toPath: beside)
        } catch {
            throw BinderyError(kind: .storage, message: "cannot write \(beside): \(error)", underlying: error)
        }
        guard rename(beside, destination) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: beside)
            throw BinderyError(kind: .storage, message: "cannot move the download to \(destination): errno \(code)")
        }
    }

    static func bindery(_ error: URLError) -> BinderyError {
        let kind: BinderyError.Kind
        switch error.code {
        case .timedOut: kind = .timeout
        case .cancelled: kind = .cancelled
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            kind = .tls
        default: kind = .connection
        }
        return BinderyError(kind: kind, message: error.localizedDescription, underlying: error)
    }
}

/// One watched transfer from start to end: the bytes sent and received as progress, the answer's body, a download's
/// file claimed in `didFinishDownloadingTo` (URLSession deletes it right after), and the caller resumed when the
/// task completes.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        /// The outcome when the task completed before `start` (a Task cancelled before it began).
        var finished: Result<(Data, URLResponse), any Error>?
        var body = Data()
        var sent: (count: Int64, total: Int64?) = (0, nil)
        var failure: (any Error)?
    }

    let destination: String?
    let progress: (@Sendable (TransferProgress) -> Void)?
    private let state = Mutex(State())

    init(destination: String?, progress: (@Sendable (TransferProgress) -> Void)?) {
        self.destination = destination
        self.progress = progress
    }

    func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let finished = state.withLock { state in
            if state.finished == nil { state.continuation = continuation }
            return state.finished
        }
        if let finished { continuation.resume(with: finished) } else { task.resume() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil
        state.withLock { $0.sent = (totalBytesSent, total) }
        progress?(TransferProgress(sent: totalBytesSent, totalToSend: total, received: 0, totalToReceive: nil))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (received, sent) = state.withLock { state in
            state.body.append(data)
            return (Int64(state.body.count), state.sent)
        }
        let expected = dataTask.countOfBytesExpectedToReceive
        progress?(
            TransferProgress(
                sent: sent.count, totalToSend: sent.total, received: received,
                totalToReceive: expected > 0 ? expected : nil))
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        progress?(
            TransferProgress(
                sent: 0, totalToSend: nil, received: totalBytesWritten,
                totalToReceive: totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil))
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // Apple's URLSession deletes the file after this returns; Linux's leaves it (a moved file is gone already).
        defer { try? FileManager.default.removeItem(at: location) }
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        do {
            if (200..<300).contains(status), let destination {
                try URLSessionTransport.move(location, to: destination)
            } else {
                let body = try Data(contentsOf: location)
                state.withLock { $0.body = body }
            }
        } catch {
            let failure =
                error as? BinderyError
                ?? BinderyError(
                    kind: .storage, message: "cannot read the downloaded answer: \(error)", underlying: error)
            state.withLock { $0.failure = failure }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let outcome: Result<(Data, URLResponse), any Error>
        let (body, failure) = state.withLock { ($0.body, $0.failure) }
        if let error = error ?? failure {
            outcome = .failure(error)
        } else if let response = task.response {
            outcome = .success((body, response))
        } else {
            outcome = .failure(BinderyError(kind: .connection, message: "the transfer ended without a response"))
        }
        // Resumed here, or kept for `start` when the task was cancelled before it was started.
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            if state.continuation == nil { state.finished = outcome }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }

    /// Redirects go back to the middleware here too.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Hands a redirect response back instead of following it.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
