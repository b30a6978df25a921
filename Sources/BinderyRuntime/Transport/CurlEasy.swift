// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl

    /// A libcurl easy handle and its error buffer, reused from one transfer to the next (after
    /// `curl_easy_reset`), so a request pays for neither a new handle nor new buffers. Loop thread only.
    final class CurlEasy {
        let handle: UnsafeMutableRawPointer
        /// Where libcurl writes the detail of a failure (`CURLOPT_ERRORBUFFER`), e.g. which port refused.
        let errorBuffer: UnsafeMutablePointer<CChar>

        init?() {
            guard let handle = curl_easy_init() else { return nil }
            self.handle = handle
            errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            curl_easy_cleanup(handle)
            errorBuffer.deallocate()
        }

        var errorText: String { String(cString: errorBuffer) }
    }
#endif
