import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneDrive
import Testing

/// `$batch` over HTTP against the mock, which runs each step as if sent alone, plays injected faults per step,
/// refuses a `dependsOn` that names a step outside the call (400 for the whole call) and answers 424 for a step
/// whose dependency failed.
@Suite struct BatchTests {
    @Test func fortyFiveStepsWithChainsAcrossCallsAndThrottledStepsAreEachAnsweredOnce() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        var folders: [String] = []
        for index in 0..<10 {
            let folder = try await client.me.drive.root.children.request().add(.folder(named: "f\(index)"))
            folders.append(try #require(folder.id))
        }
        // 0-14: reads; 15: creates a folder; 16-29: a chain, each after the one before, across the call boundary at
        // 20; 30-44: reads again, 44 of an item that does not exist. Five steps read a path of their own that is
        // throttled once: 3, 17 (inside the chain), 22, 31 and 40.
        let throttled = [3: 0, 17: 1, 22: 2, 31: 3, 40: 4]
        var steps: [BatchStep] = []
        for index in 0..<45 {
            let id = "s\(index)"
            switch index {
            case 15:
                var create = client.me.drive.root.children.request().request
                create.method = .post
                create.setJSONBody(client.client.body(for: DriveItem.folder(named: "made-once")))
                steps.append(BatchStep(id: id, create))
            case let index where throttled[index] != nil:
                let path = client.me.drive.items(folders[throttled[index]!]).children.request().request
                steps.append(BatchStep(id: id, path, dependsOn: (16...29).contains(index) ? ["s\(index - 1)"] : []))
            case 16...29:
                steps.append(
                    BatchStep(
                        id: id, client.me.drive.items(folders[index % 10]).request().request,
                        dependsOn: ["s\(index - 1)"]))
            case 44:
                steps.append(BatchStep(id: id, client.me.drive.items("no-such-item").request().request))
            default:
                steps.append(BatchStep(id: id, client.me.drive.items(folders[index % 10]).request().request))
            }
        }
        for folder in throttled.values.map({ folders[$0] }) {
            mock.inject(.status(429, retryAfter: 0), count: 1, pathContains: "/items/\(folder)/children")
        }
        mock.clearRequests()

        let answers = try await client.batch(steps)
        let calls = mock.requests.filter { $0.path.hasSuffix("/$batch") }
        let made = mock.store.allItems(below: []).filter { $0.object["name"]?.stringValue == "made-once" }
        await mock.stop()

        #expect(answers.map(\.id) == steps.map(\.id), "one answer per step, in the order of the steps")
        let failed = answers.dropLast().filter { !$0.succeeded }.map(\.id)
        #expect(failed.isEmpty, "\(failed)")
        for index in throttled.keys { #expect(answers[index].attempts == 2, "s\(index) was sent again once") }
        #expect(answers[18].attempts == 2, "a step that failed only because its dependency was throttled goes again")
        #expect(answers[10].attempts == 1)
        #expect(made.count == 1, "the create step ran once")
        #expect(calls.count == 4, "three calls of at most 20, then one with the throttled steps and their dependants")
        #expect(calls.allSatisfy { $0.json?["requests"]?.arrayValue?.count ?? 99 <= 20 })
        // Typed answers: a model for a step that succeeded, the service's error for the one that did not.
        #expect(try answers[0].decode(DriveItem.self).id == folders[0])
        #expect(try answers[15].decode(DriveItem.self).name == "made-once")
        let error = try #require(answers[44].error)
        #expect(error.status == 404 && error.serviceCode == "itemNotFound")
        #expect(throws: BinderyError.self) { try answers[44].decode(DriveItem.self) }
    }

    @Test func stepsThatCannotBeSentAreRefusedBeforeAnything() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        let read = client.me.drive.root.request().request
        for steps in [
            [BatchStep(id: "a", read), BatchStep(id: "a", read)],
            [BatchStep(id: "a", read, dependsOn: ["b"])],
            [BatchStep(id: "a", read, dependsOn: ["b"]), BatchStep(id: "b", read, dependsOn: ["a"])],
        ] {
            await #expect(throws: BinderyError.self) { try await client.batch(steps) }
        }
        let calls = mock.requests.filter { $0.path.hasSuffix("/$batch") }
        await mock.stop()
        #expect(calls.isEmpty)
    }
}
