import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport over Foundation's `URLSession`: the default on Apple platforms, an alternative on Linux.
///
/// Redirects are handed back to the client's middleware rather than followed, so credentials are
/// handled the same way as over libcurl.
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
        if let timeout = request.options.timeout {
            urlRequest.timeoutInterval =
                Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
        let data: Data
        let response: URLResponse
        do {
            switch request.body {
            case .bytes(let bytes)?:
                (data, response) = try await session.upload(for: urlRequest, from: Data(bytes))
            case .file(let path)?:
                (data, response) = try await session.upload(for: urlRequest, fromFile: URL(fileURLWithPath: path))
            case nil:
                (data, response) = try await session.data(for: urlRequest)
            }
        } catch let error as URLError {
            throw Self.bindery(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw BinderyError(kind: .connection, message: "the response is not HTTP")
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            if let text = name as? String, let name = HTTPField.Name(text), let value = value as? String {
                fields.append(HTTPField(name: name, value: value))
            }
        }
        let status = HTTPResponse.Status(code: http.statusCode)
        if let path = request.options.downloadPath, status.kind == .successful {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            return APIResponse(status: status, headers: fields, body: [])
        }
        return APIResponse(status: status, headers: fields, body: Array(data))
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

/// Hands a redirect response back instead of following it.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
