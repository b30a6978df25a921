// libcurl's own behaviour: only where the package is built with it (not under BINDERY_NO_CURL=1).
#if canImport(CCurl)
    import BinderyRuntime
    import Foundation
    import HTTPTypes
    import TestSupport
    import Testing

    /// CurlTransport over TLS against a real local server: nginx with HTTP/2, a certificate from a test certificate
    /// authority made for the test with openssl. The chain is verified against the configured CA, HTTP/2 is
    /// negotiated, and an untrusted certificate or a wrong host name is a typed `.tls` error. (`make setup` installs
    /// nginx; a missing nginx or openssl fails the test.)
    // The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
    // wait a minute or more for a thread before its first line runs.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct TLSTransportTests {
        /// A running nginx serving `{"ok":true}` over TLS with HTTP/2 on 127.0.0.1, its files in `folder`.
        final class TLSServer: Sendable {
            let folder: URL
            let port: Int
            let process: ChildProcess

            /// Makes the certificates and starts nginx on a thread of its own (both block for seconds).
            static func start() async throws -> TLSServer { try await offThePool { try TLSServer() } }

            private init() throws {
                let nginx = try #require(
                    ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) },
                    "nginx is not installed (make setup installs it)")
                folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "bindery-tls-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let dir = folder.path
                // A CA, and a certificate it signs for the name `localhost` only (not 127.0.0.1).
                try Self.shell(
                    """
                    set -e
                    cd '\(dir)'
                    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Bindery Test CA'
                    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj '/CN=localhost'
                    printf 'subjectAltName=DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > ext.cnf
                    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile ext.cnf
                    openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 2 -subj '/CN=Someone Else'
                    """)
                // A free port is released before nginx binds it, so another process can take it meanwhile:
                // then nginx stops at once with "Address already in use", and it is started again on another.
                var attempt = 0
                while true {
                    attempt += 1
                    let port = try Self.freePort()
                    let process = try Self.startNginx(nginx, in: folder, port: port)
                    switch Self.awaitListening(process, port: port, folder: folder) {
                    case .listening:
                        (self.port, self.process) = (port, process)
                        return
                    case .portTaken where attempt < 5:
                        continue
                    case .portTaken, .failed:
                        let log =
                            (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                        process.signal(SIGTERM)
                        throw TestFailure("nginx did not start: \(log)")
                    }
                }
            }

            static func startNginx(_ nginx: String, in folder: URL, port: Int) throws -> ChildProcess {
                let dir = folder.path
                let configuration = """
                    daemon off;
                    pid \(dir)/nginx.pid;
                    error_log \(dir)/error.log;
                    events {}
                    http {
                        log_format protocol '$server_protocol $request_uri';
                        access_log \(dir)/access.log protocol;
                        client_body_temp_path \(dir)/body;
                        proxy_temp_path \(dir)/proxy;
                        fastcgi_temp_path \(dir)/fastcgi;
                        uwsgi_temp_path \(dir)/uwsgi;
                        scgi_temp_path \(dir)/scgi;
                        server {
                            listen 127.0.0.1:\(port) ssl http2;
                            ssl_certificate \(dir)/server.pem;
                            ssl_certificate_key \(dir)/server.key;
                            location / { default_type application/json; return 200 '{"ok":true}'; }
                        }
                    }
                    """
                try Data(configuration.utf8).write(to: folder.appendingPathComponent("nginx.conf"))
                try? FileManager.default.removeItem(at: folder.appendingPathComponent("error.log"))
                return try ChildProcess(URL(fileURLWithPath: nginx), ["-p", dir, "-c", "\(dir)/nginx.conf"])
            }

            enum Start { case listening, portTaken, failed }

            /// Ready when it accepts connections; if it ended, whether its port was taken.
            static func awaitListening(_ process: ChildProcess, port: Int, folder: URL) -> Start {
                let deadline = Date(timeIntervalSinceNow: 20)
                while !accepts(port: port) {
                    guard process.isRunning else {
                        let log =
                            (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                        return log.contains("Address already in use") ? .portTaken : .failed
                    }
                    guard Date() < deadline else { return .failed }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                return .listening
            }

            func stop() {
                process.signal(SIGTERM)
                _ = process.waitUntilEnded()
                try? FileManager.default.removeItem(at: folder)
            }

            var caPath: String { folder.appendingPathComponent("ca.pem").path }
            var otherCAPath: String { folder.appendingPathComponent("other.pem").path }
            var accessLog: String {
                (try? String(contentsOf: folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
            }

            static func shell(_ script: String) throws {
                let ending = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script]).waitUntilEnded()
                guard ending == .exited(0) else { throw TestFailure("openssl failed: is it installed?") }
            }

            /// A port the kernel just gave out on 127.0.0.1.
            static func freePort() throws -> Int {
                let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(socket) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
                    }
                }
                guard bound else { throw TestFailure("no free port") }
                return Int(UInt16(bigEndian: address.sin_port))
            }

            static func accepts(port: Int) -> Bool {
                let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(socket) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(port).bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                return withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
            }
        }

        static func get(_ url: String, caBundle: String?) async throws -> APIResponse {
            let transport = CurlTransport(configuration: .init(connectTimeout: .seconds(10), caBundlePath: caBundle))
            return try await transport.send(TransportRequest(HTTPRequest(method: .get, url: URL(string: url)!)))
        }

        @Test func http2OverTLSWithTheChainVerifiedAgainstTheConfiguredCA() async throws {
            let server = try await TLSServer.start()
            defer { server.stop() }
            let answer = try await Self.get("https://localhost:\(server.port)/drive", caBundle: server.caPath)
            #expect(answer.status.code == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"ok":true}"#)
            #expect(server.accessLog.contains("HTTP/2.0 /drive"), "negotiated: \(server.accessLog)")
        }

        @Test func anUntrustedCertificateIsATLSError() async throws {
            let server = try await TLSServer.start()
            defer { server.stop() }
            // A CA that did not sign the server's certificate.
            let error = await #expect(throws: BinderyError.self) {
                _ = try await Self.get("https://localhost:\(server.port)/drive", caBundle: server.otherCAPath)
            }
            #expect(error?.kind == .tls, "\(String(describing: error))")
            #expect(!server.accessLog.contains("/drive"), "no request reached the server")
        }

        @Test func aWrongHostNameIsATLSError() async throws {
            let server = try await TLSServer.start()
            defer { server.stop() }
            // The certificate names `localhost`; the URL names 127.0.0.1.
            let error = await #expect(throws: BinderyError.self) {
                _ = try await Self.get("https://127.0.0.1:\(server.port)/drive", caBundle: server.caPath)
            }
            #expect(error?.kind == .tls, "\(String(describing: error))")
            #expect(!server.accessLog.contains("/drive"))
        }
    }
#endif
