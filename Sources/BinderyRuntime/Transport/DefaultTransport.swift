/// The transport clients use unless given one: libcurl on Linux, URLSession on Apple platforms (which have no
/// libcurl) and on Linux when the package is built with `BINDERY_NO_CURL=1`.
public enum DefaultTransport {
    public static var shared: any HTTPTransport { instance }

    #if canImport(CCurl)
        private static let instance: any HTTPTransport = CurlTransport.shared
    #else
        private static let instance: any HTTPTransport = URLSessionTransport()
    #endif
}
