// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl
    import Foundation
    import HTTPTypes

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// One request from `send` to its result.
    ///
    /// `@unchecked Sendable` because ownership moves rather than being shared: `send` builds it (on the
    /// caller's thread, so the loop thread only has to set options), hands it to the loop thread under the
    /// engine's lock, and from then on only the loop thread touches it, through the libcurl callbacks below.
    /// The one exception is `id`, which is immutable.
    final class CurlTransfer: @unchecked Sendable {
        let id: UInt64
        /// Resumed exactly once, by `complete` or `fail`, which clear it.
        var continuation: UnsafeContinuation<APIResponse, any Error>?
        /// The easy handle while the transfer is attached to one.
        var easy: CurlEasy?

        // The request, prepared before it reaches the loop.
        private let url: String
        private let authority: String
        private let method: HTTPRequest.Method
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private var upload: Upload?
        private let timeoutMilliseconds: Int?
        private let downloadPath: String?
        private let progress: (@Sendable (TransferProgress) -> Void)?

        // The response, filled in by the callbacks.
        /// Collected as an array and made `HTTPFields` once: appending to `HTTPFields` one by one costs more.
        private var headers: [HTTPField] = []
        private var body: [UInt8] = []
        private var bodyStarted = false
        private var download: Download?
        /// A failure of our own (a file that cannot be written) that made a callback stop the transfer; it
        /// explains the transfer's end better than libcurl's "write error".
        private var failure: BinderyError?
        private var lastProgress: TransferProgress?
        /// The largest in-memory body this transfer accepts (the transport's configuration).
        private var maxBodySize: Int?

        static let cancelledError = BinderyError(kind: .cancelled, message: "the request was cancelled")

        /// The most reserved up front for an in-memory body of known length: a `Content-Length` is only a
        /// claim, and a compressed body's length is not the decoded one anyway.
        private static let maxReservation = 64 << 20

        init(_ request: TransportRequest, id: UInt64) throws(BinderyError) {
            self.id = id
            let head = request.head
            guard let scheme = head.scheme, let authority = head.authority else {
                throw BinderyError(kind: .connection, message: "the request has no URL (no scheme or authority)")
            }
            self.authority = authority
            url = "\(scheme)://\(authority)\(head.path ?? "/")"
            method = head.method
            timeoutMilliseconds = request.options.timeout?.curlMilliseconds
            downloadPath = request.options.downloadPath
            progress = request.options.progress

            switch request.body {
            case .bytes(let bytes)?: upload = .inMemory(bytes)
            case .file(let path)?: upload = try .opening(path)
            case nil:
                // POST, PUT and PATCH without a body still say `Content-Length: 0`: some servers answer a
                // bodiless POST with 411 Length Required otherwise.
                upload = [.post, .put, .patch].contains(head.method) ? .inMemory([]) : nil
            }

            var hasExpect = false
            var hasContentType = false
            for field in head.headerFields {
                switch field.name {
                // libcurl sets the length from the body itself; a second, possibly different one would be wrong.
                case .contentLength: continue
                case .expect: hasExpect = true
                case .contentType: hasContentType = true
                default: break
                }
                // "Name:" would make libcurl drop the header; "Name;" is its spelling for an empty value.
                let line = field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
                try append(line)
            }
            // Without these, libcurl would add `Expect: 100-continue` to large uploads (a round trip, or a
            // one-second stall with servers that ignore it) and a form content type to bodies that have none.
            if !hasExpect { try append("Expect:") }
            if upload != nil && !hasContentType { try append("Content-Type:") }
        }

        private func append(_ line: String) throws(BinderyError) {
            guard let list = curl_slist_append(headerList, line) else {
                throw BinderyError(kind: .connection, message: "cannot build the request headers (out of memory)")
            }
            headerList = list
        }

        deinit {
            curl_slist_free_all(headerList)
            if case .file(let file)? = upload { close(file.descriptor) }
            download?.discard()
        }

        // MARK: Starting

        /// Sets the easy handle up for this transfer; a failure if libcurl rejected an option.
        func attach(to easy: CurlEasy, settings: CurlEngine.Settings) -> BinderyError? {
            self.easy = easy
            let handle = easy.handle
            easy.errorBuffer[0] = 0
            let context = Unmanaged.passUnretained(self).toOpaque()
            var rejected: (CURLoption, CURLcode)?
            func check(_ code: CURLcode, _ option: CURLoption) {
                if code != CURLE_OK && rejected == nil { rejected = (option, code) }
            }
            func set(_ option: CURLoption, _ value: Int) {
                check(ccurl_easy_setopt_long(handle, option, value), option)
            }
            func set(_ option: CURLoption, _ value: String) {
                check(ccurl_easy_setopt_string(handle, option, value), option)
            }
            func set(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
                check(ccurl_easy_setopt_ptr(handle, option, value), option)
            }

            set(CURLOPT_URL, url)
            // Only HTTP: a redirect middleware or a URL from a response must not reach file:// or anything else.
            set(CURLOPT_PROTOCOLS_STR, "http,https")
            // Send the path exactly as built; libcurl would otherwise squash "/../" segments.
            set(CURLOPT_PATH_AS_IS, 1)
            set(CURLOPT_PRIVATE, context)
            set(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(easy.errorBuffer))
            // Signals are process-wide; a library must not use them for its timeouts (and threads make them unsafe).
            set(CURLOPT_NOSIGNAL, 1)
            // A 128 KiB receive buffer (libcurl's default is 16 KiB): large bodies arrive in an eighth of the
            // callbacks, for 112 KiB more per handle.
            set(CURLOPT_BUFFERSIZE, 128 * 1024)
            set(CURLOPT_FOLLOWLOCATION, 0)  // redirects are the middleware's
            set(CURLOPT_ACCEPT_ENCODING, "")  // every encoding this libcurl can decode, decoded transparently
            set(CURLOPT_HTTP_VERSION, settings.httpVersion)
            set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds)
            maxBodySize = settings.maxResponseBodySize
            if let timeout = timeoutMilliseconds ?? settings.timeoutMilliseconds { set(CURLOPT_TIMEOUT_MS, timeout) }
            set(CURLOPT_SSL_VERIFYPEER, settings.verifiesCertificates ? 1 : 0)
            set(CURLOPT_SSL_VERIFYHOST, settings.verifiesCertificates ? 2 : 0)
            if let path = settings.caBundlePath { set(CURLOPT_CAINFO, path) }
            check(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), CURLOPT_HTTPHEADER)

            check(ccurl_easy_setopt_data_cb(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback), CURLOPT_HEADERFUNCTION)
            set(CURLOPT_HEADERDATA, context)
            check(ccurl_easy_setopt_data_cb(handle, CURLOPT_WRITEFUNCTION, curlWriteCallback), CURLOPT_WRITEFUNCTION)
            set(CURLOPT_WRITEDATA, context)

            if method == .head {
                set(CURLOPT_NOBODY, 1)
            } else if let upload {
                // Every body goes the POST way, streamed by the read callback with its size known up front (so
                // it is sent with Content-Length, not chunked); other methods only rename the request line.
                set(CURLOPT_POST, 1)
                let size = curl_off_t(upload.size)
                check(ccurl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, size), CURLOPT_POSTFIELDSIZE_LARGE)
                check(ccurl_easy_setopt_data_cb(handle, CURLOPT_READFUNCTION, curlReadCallback), CURLOPT_READFUNCTION)
                set(CURLOPT_READDATA, context)
                // libcurl rewinds when it resends the body, e.g. on a fresh connection after a kept-alive one
                // turned out to be closed; without this it would fail such a request instead.
                check(ccurl_easy_setopt_seek_cb(handle, curlSeekCallback), CURLOPT_SEEKFUNCTION)
                set(CURLOPT_SEEKDATA, context)
                if method != .post { set(CURLOPT_CUSTOMREQUEST, method.rawValue) }
            } else if method != .get {
                set(CURLOPT_CUSTOMREQUEST, method.rawValue)
            }

            if progress != nil {
                set(CURLOPT_NOPROGRESS, 0)
                check(ccurl_easy_setopt_xferinfo_cb(handle, curlProgressCallback), CURLOPT_XFERINFOFUNCTION)
                set(CURLOPT_XFERINFODATA, context)
            }

            guard let (option, code) = rejected else { return nil }
            let text = String(cString: curl_easy_strerror(code))
            return BinderyError(
                kind: .connection, message: "libcurl rejected option \(option.rawValue) (\(text))",
                underlying: CurlTransport.CurlError(code: Int(code.rawValue), description: text))
        }

        // MARK: Finishing

        /// The response or error for a transfer libcurl has finished with `code`. Loop thread, before the
        /// handle leaves the multi handle.
        func result(of code: CURLcode) -> Result<APIResponse, BinderyError> {
            if let failure { return .failure(failure) }
            guard code == CURLE_OK else {
                return .failure(CurlTransport.error(for: code, detail: easy?.errorText ?? "", authority: authority))
            }
            let status = responseCode()
            guard (100...999).contains(status) else {
                return .failure(BinderyError(kind: .connection, message: "\(authority) sent no HTTP status line"))
            }
            if let downloadPath, (200..<300).contains(status) {
                do throws(BinderyError) {
                    if download == nil { download = try Download(destination: downloadPath) }
                    try download?.commit()
                    download = nil
                } catch {
                    return .failure(error)
                }
            }
            return .success(
                APIResponse(status: HTTPResponse.Status(code: status), headers: HTTPFields(headers), body: body))
        }

        /// Resumes the caller with `result`; loop thread.
        func complete(_ result: Result<APIResponse, BinderyError>) {
            guard let continuation else { return }
            self.continuation = nil
            if case .failure = result { discardDownload() }
            // An in-memory body goes now, not when the engine lets go of the transfer: the caller may already be
            // reading the next one (upload sessions send one chunk after another).
            if case .bytes? = upload { upload = nil }
            switch result {
            case .success(let response): continuation.resume(returning: response)
            case .failure(let error): continuation.resume(throwing: error)
            }
        }

        func fail(_ error: BinderyError) { complete(.failure(error)) }

        private func discardDownload() {
            download?.discard()
            download = nil
        }

        private func responseCode() -> Int {
            guard let easy else { return 0 }
            var status = 0
            _ = ccurl_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
            return status
        }

        // MARK: Callbacks (loop thread, inside curl_multi_perform)

        func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
            var end = line.count
            while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: line[..<end])
            if line.starts(with: "HTTP/".utf8) {
                // A new status line: whatever came before was an interim response (100 Continue) or a proxy's
                // answer to CONNECT, not part of the final response.
                headers.removeAll()
                return
            }
            // Empty: the end of the header block. After the body: trailer fields, which are not headers.
            guard !line.isEmpty, !bodyStarted else { return }
            if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
                // Obsolete line folding (RFC 9112 §5.2): the line continues the previous field's value.
                guard let last = headers.indices.last else { return }
                let folded = Array(headers[last].value.utf8) + [UInt8(ascii: " ")] + trimmed(line[...])
                headers[last] = HTTPField(name: headers[last].name, lenientValue: folded)
                return
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                let name = Self.commonName(trimmed(line[..<colon]))
                    ?? HTTPField.Name(String(decoding: trimmed(line[..<colon]), as: UTF8.self))
            else { return }
            headers.append(HTTPField(name: name, lenientValue: trimmed(line[(colon + 1)...])))
        }

        /// Names nearly every response carries, matched without building, validating and lowercasing a string. Such a
        /// field keeps HTTPTypes' spelling of the name (`rawName` is `Content-Type` whatever the wire's case), which
        /// changes nothing for lookups: names compare by their canonical, lowercase form.
        private static let commonNames: [(canonical: [UInt8], name: HTTPField.Name)] = [
            HTTPField.Name.contentType, .contentLength, .date, .server, .connection, .cacheControl, .eTag,
            .lastModified,
            .transferEncoding, .contentEncoding, .location, .vary, .acceptRanges, .strictTransportSecurity,
        ].map { (Array($0.canonicalName.utf8), $0) }

        private static func commonName(_ bytes: Slice<UnsafeRawBufferPointer>) -> HTTPField.Name? {
            let start = bytes.startIndex
            search: for (canonical, name) in commonNames where canonical.count == bytes.count {
                // Canonical names are lowercase ASCII: an uppercase letter on the wire is lowered, nothing else.
                for offset in canonical.indices {
                    let byte = bytes[start + offset]
                    guard canonical[offset] == ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) else {
                        continue search
                    }
                }
                return name
            }
            return nil
        }

        private func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
            var bytes = bytes
            while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                bytes = bytes.dropFirst()
            }
            while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
                bytes = bytes.dropLast()
            }
            return bytes
        }

        /// Takes body bytes (already decoded when the response was compressed); returns how many were taken,
        /// anything short of all of them stops the transfer.
        func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
            if !bodyStarted {
                bodyStarted = true
                // The status is final once the body starts: only a success goes to the download file, so an
                // error body stays in memory for the error parser.
                if let downloadPath, (200..<300).contains(responseCode()) {
                    do throws(BinderyError) {
                        download = try Download(destination: downloadPath)
                    } catch {
                        failure = error
                        return 0
                    }
                } else if let easy {
                    var length: curl_off_t = -1
                    _ = ccurl_easy_getinfo_off(easy.handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
                    if let maxBodySize, length > maxBodySize, !isEncoded {
                        failure = tooLarge(maxBodySize)
                        return 0
                    }
                    if length > 0 { body.reserveCapacity(min(Int(length), Self.maxReservation)) }
                }
            }
            if download != nil {
                do throws(BinderyError) {
                    try download?.write(chunk)
                } catch {
                    failure = error
                    return 0
                }
            } else {
                if let maxBodySize, chunk.count > maxBodySize - body.count {
                    failure = tooLarge(maxBodySize)
                    return 0
                }
                body.append(contentsOf: chunk)
            }
            return chunk.count
        }

        /// Whether the body arrives compressed: its `Content-Length` is then not the size it decodes to.
        private var isEncoded: Bool {
            headers.contains { $0.name == .contentEncoding && $0.value != "identity" }
        }

        private func tooLarge(_ limit: Int) -> BinderyError {
            BinderyError(
                kind: .invalidResponse,
                message: "the response body from \(authority) is larger than the limit of \(limit) bytes")
        }

        /// Fills `buffer` with the next body bytes; 0 at the end.
        func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            guard let upload else { return 0 }
            switch upload {
            case .bytes(let bytes, let offset):
                let count = min(buffer.count, bytes.count - offset.value)
                bytes.withUnsafeBytes { source in
                    buffer.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: source[offset.value..<offset.value + count]))
                }
                offset.value += count
                return count
            case .file(let file):
                while true {
                    let count = read(file.descriptor, buffer.baseAddress, buffer.count)
                    if count >= 0 { return count }
                    if errno == EINTR { continue }
                    let reason = String(cString: strerror(errno))
                    failure = BinderyError(
                        kind: .connection, message: "cannot read the request body from \(file.path): \(reason)")
                    return curlReadAbort
                }
            }
        }

        /// Goes back to `offset` in the body, for a resend.
        func seekBody(to offset: Int64) -> Int32 {
            guard let upload, offset >= 0, offset <= upload.size else { return CURL_SEEKFUNC_FAIL }
            switch upload {
            case .bytes(_, let position):
                position.value = Int(offset)
            case .file(let file):
                guard lseek(file.descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                    return CURL_SEEKFUNC_FAIL
                }
            }
            return CURL_SEEKFUNC_OK
        }

        func reportProgress(
            received: curl_off_t, totalToReceive: curl_off_t, sent: curl_off_t, totalToSend: curl_off_t
        ) {
            guard let progress else { return }
            let report = TransferProgress(
                sent: Int64(sent), totalToSend: totalToSend > 0 ? Int64(totalToSend) : nil,
                received: Int64(received), totalToReceive: totalToReceive > 0 ? Int64(totalToReceive) : nil)
            // libcurl calls this on every turn of the loop, moved or not; callers only hear about movement.
            guard report != lastProgress else { return }
            lastProgress = report
            progress(report)
        }
    }
#endif
