// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl
    import Foundation
    import HTTPTypes

    /// The default transport: libcurl's multi interface, driven by one thread per transport.
    ///
    /// Why this shape: one thread owns the multi handle, so libcurl itself needs no locking, and every request
    /// shares the multi handle's connection cache (keep-alive, HTTP/2 multiplexing, DNS cache). `send` prepares
    /// the request on the caller's thread, hands it to the loop under a lock and wakes the loop; the loop
    /// resumes the caller's continuation once, when the transfer ends. There are no dispatch-queue hops on the
    /// way: one hand-over to the loop thread and one back.
    ///
    /// As every transport, it follows no redirects, retries nothing and adds no credentials (see
    /// `HTTPTransport`). It does decode gzip and deflate bodies transparently (the `Content-Encoding` header
    /// stays in the response), honours the `http_proxy`/`https_proxy`/`no_proxy` environment variables, and
    /// never sends `Expect: 100-continue` (a round trip less per upload, and no stall with servers that ignore it).
    /// Progress callbacks and download-file writes run on the loop thread, between network events, so a slow
    /// progress callback delays every transfer of the transport.
    public final class CurlTransport: HTTPTransport {
        /// How every transfer of one transport runs.
        public struct Configuration: Sendable {
            /// The most the TCP and TLS handshakes may take.
            public var connectTimeout: Duration
            /// The most a whole exchange may take when the request sets no timeout of its own; nil for no limit.
            public var timeout: Duration?
            /// How many connections may be open to one host at once; further requests wait for a free one.
            /// Nil for no limit. HTTP/2 multiplexes many requests over one connection regardless.
            public var maxConnectionsPerHost: Int?
            /// Which HTTP version to ask for.
            public var httpVersion: HTTPVersion
            /// Whether the server's certificate chain and its host name are checked. Turn this off only for a
            /// test server you control: without it, anyone on the path can read and change the traffic.
            public var verifiesCertificates: Bool
            /// A PEM file of trusted certificate authorities instead of the system's, e.g. for a private CA.
            public var caBundlePath: String?
            /// The largest response body held in memory, after decompression; a larger one (a hostile or broken
            /// server, a gzip bomb) ends the transfer with an `invalidResponse` error. Bodies streamed to a file
            /// (`TransferOptions.downloadPath`) are not limited. Nil for no limit.
            public var maxResponseBodySize: Int?

            /// The default `maxResponseBodySize`: 256 MiB, far above any JSON page a service sends.
            public static let defaultMaxResponseBodySize = 256 << 20

            public init(
                connectTimeout: Duration = .seconds(30), timeout: Duration? = nil, maxConnectionsPerHost: Int? = 8,
                httpVersion: HTTPVersion = .http2OverTLS, verifiesCertificates: Bool = true,
                caBundlePath: String? = nil,
                maxResponseBodySize: Int? = Configuration.defaultMaxResponseBodySize
            ) {
                self.maxResponseBodySize = maxResponseBodySize
                self.connectTimeout = connectTimeout
                self.timeout = timeout
                self.maxConnectionsPerHost = maxConnectionsPerHost
                self.httpVersion = httpVersion
                self.verifiesCertificates = verifiesCertificates
                self.caBundlePath = caBundlePath
            }
        }

        /// The HTTP version a transport asks for; a struct rather than an enum so versions can be added.
        public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
            let curlValue: Int
            public let description: String

            /// HTTP/1.1 only.
            // swift-format-ignore: AlwaysUseLowerCamelCase
            public static let http1_1 = HTTPVersion(curlValue: Int(CURL_HTTP_VERSION_1_1), description: "HTTP/1.1")
            /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise and for plain `http`.
            public static let http2OverTLS = HTTPVersion(
                curlValue: Int(CURL_HTTP_VERSION_2TLS), description: "HTTP/2 over TLS")
            /// HTTP/2 from the first byte, also over plain `http`: only for servers known to speak it (h2c).
            public static let http2PriorKnowledge = HTTPVersion(
                curlValue: Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE), description: "HTTP/2 with prior knowledge")
        }

        /// libcurl's own failure, kept as the `underlying` error of the `BinderyError` a transfer throws.
        public struct CurlError: Error, Sendable, CustomStringConvertible {
            /// The `CURLcode`, e.g. 7 for "couldn't connect".
            public let code: Int
            /// libcurl's text for the code, followed by its detail for this transfer when it gave one.
            public let description: String
        }

        /// A transport with the default configuration, shared by clients that are not given one.
        public static let shared = CurlTransport()

        public let configuration: Configuration
        private let engine: CurlEngine

        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
            engine = CurlEngine(configuration: configuration)
        }

        /// The transport's loop thread as a task executor, for code that sends many small requests and wants no
        /// thread hand-off per request: a task that prefers it (`withTaskExecutorPreference(transport.executor)`,
        /// `group.addTask(executorPreference:)`) runs on the loop thread, so its request reaches libcurl and its
        /// response comes back on the same thread.
        ///
        /// The loop runs such tasks between network events, one job at a time in the order they arrive (task
        /// priorities are not consulted): keep their work short (decode, hand the result on), as a long one delays
        /// every transfer of the transport. Code isolated to the main actor, or to an actor with an executor of its
        /// own, runs there as always; a plain actor's methods called from such a task follow the task's preference
        /// (SE-0417), so they run on the loop thread too. Keep the transport alive while tasks prefer its executor;
        /// once it is gone, their jobs run on the global concurrent executor.
        public var executor: any TaskExecutor { engine }

        /// Stops the loop thread; it aborts what is left (nothing, normally: every `send` keeps the transport
        /// alive until it returns) and frees the libcurl handles before the thread ends.
        deinit { engine.stop() }

        /// Sends the request and returns the final response, whatever its status. Throws a `BinderyError`:
        /// `connection` (no connection, or it broke before the whole response arrived; also a body file that
        /// cannot be read or a download that cannot be written), `tls`, `timeout`, `cancelled` (the task was
        /// cancelled: the transfer is aborted at once), or `invalidResponse` for a body that fails to decompress.
        public func send(_ request: TransportRequest) async throws -> APIResponse {
            if Task.isCancelled { throw CurlTransfer.cancelledError }
            let transfer = try CurlTransfer(request, id: engine.makeTransferID())
            let engine = engine
            let id = transfer.id
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    transfer.continuation = continuation
                    // Checks for cancellation under the engine's lock: a cancellation handler that has already
                    // run found nothing to cancel, so the transfer must not start.
                    if !engine.submit(transfer) {
                        transfer.continuation = nil
                        continuation.resume(throwing: CurlTransfer.cancelledError)
                    }
                }
            } onCancel: {
                engine.cancel(id)
            }
        }

        /// The `BinderyError` for a failed transfer: the kind a caller can act on, a sentence that says what
        /// happened, and libcurl's own words for this transfer.
        static func error(for code: CURLcode, detail: String, authority: String) -> BinderyError {
            let kind: BinderyError.Kind
            let summary: String
            switch code {
            case CURLE_OPERATION_TIMEDOUT:
                kind = .timeout
                summary = "the request to \(authority) timed out"
            case CURLE_ABORTED_BY_CALLBACK:
                kind = .cancelled
                summary = "the request to \(authority) was cancelled"
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
                CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
                CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
                CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
                CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
                kind = .tls
                summary = "the TLS handshake with \(authority) failed"
            case CURLE_BAD_CONTENT_ENCODING:
                kind = .invalidResponse
                summary = "the response body from \(authority) could not be decoded"
            case CURLE_COULDNT_RESOLVE_HOST:
                kind = .connection
                summary = "cannot resolve the host of \(authority)"
            case CURLE_COULDNT_RESOLVE_PROXY:
                kind = .connection
                summary = "cannot resolve the proxy for \(authority)"
            case CURLE_COULDNT_CONNECT:
                kind = .connection
                summary = "cannot connect to \(authority)"
            case CURLE_PARTIAL_FILE:
                kind = .connection
                summary = "the connection to \(authority) closed before the whole response body arrived"
            case CURLE_GOT_NOTHING:
                kind = .connection
                summary = "\(authority) closed the connection without answering"
            case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
                kind = .connection
                summary = "the connection to \(authority) broke"
            default:
                kind = .connection
                summary = "the request to \(authority) failed"
            }
            let text = String(cString: curl_easy_strerror(code))
            let description = detail.isEmpty ? text : "\(text): \(detail)"
            return BinderyError(
                kind: kind, message: "\(summary) (\(description))",
                underlying: CurlError(code: Int(code.rawValue), description: description))
        }
    }
#endif
