import BinderyRuntime
import Foundation
import Inbox
import InboxOffline

// The process the crash tests kill with SIGKILL: `inbox-offline-worker sync|replay DB URL TOKEN NAMESPACE`.
// It prints `ready` once the store is open, then one line per step, so the test knows it is mid-work.
// LEASE_SECONDS in the environment shortens the outbox's lease, for the test of a send that outlasts it.

let arguments = CommandLine.arguments
guard arguments.count == 6, let url = URL(string: arguments[3]) else {
    FileHandle.standardError.write(Data("usage: inbox-offline-worker sync|replay DB URL TOKEN NAMESPACE\n".utf8))
    exit(2)
}
let store = try InboxStore(path: arguments[2])
let client = InboxClient(baseURL: url, auth: InboxSignIn.auth(token: arguments[4]), middleware: [])

@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

say("ready")
switch arguments[1] {
case "sync":
    var sync = InboxSync(store: store, client: client, namespace: arguments[5])
    sync.pageSize = 50
    try await sync.sync { progress in say("\(progress.phase) \(progress.objects)") }
case "replay":
    var outbox = InboxOutbox(store: store, client: client, namespace: arguments[5])
    outbox.initialBackoff = .zero
    if let seconds = ProcessInfo.processInfo.environment["LEASE_SECONDS"].flatMap(Double.init) {
        outbox.leaseDuration = .milliseconds(Int(seconds * 1000))
    }
    let report = try await outbox.replay { write in say("\(write.operation) \(write.targetID)") }
    say("replayed \(report.completed.count)" + (report.busy ? " busy" : ""))
default:
    exit(2)
}
say("done")
