/// The transport clients use unless given one: libcurl on Linux, URLSession on Apple platforms.
public enum DefaultTransport {
    public static var shared: any HTTPTransport { instance }

    #if os(Linux)
        private static let instance: any HTTPTransport = CurlTransport.shared
    #else
        private static let instance: any HTTPTransport = URLSessionTransport()
    #endif
}
