// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl

    /// `CURL_READFUNC_ABORT` as the callback's return type.
    let curlReadAbort = Int(CURL_READFUNC_ABORT)

    // The C callbacks: each finds its transfer in the user-data pointer (unretained: the loop's table of
    // transfers in flight keeps it alive for as long as libcurl may call).

    func curlHeaderCallback(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }

    func curlWriteCallback(
        _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    func curlReadCallback(
        _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
    ) -> Int {
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }

    func curlSeekCallback(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
        // libcurl only ever seeks from the start (SEEK_SET) to rewind a body.
        guard origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        return transfer.seekBody(to: Int64(offset))
    }

    func curlProgressCallback(
        _ context: UnsafeMutableRawPointer?, _ totalToReceive: curl_off_t, _ received: curl_off_t,
        _ totalToSend: curl_off_t, _ sent: curl_off_t
    ) -> Int32 {
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.reportProgress(
            received: received, totalToReceive: totalToReceive, sent: sent, totalToSend: totalToSend)
        return 0
    }
#endif
