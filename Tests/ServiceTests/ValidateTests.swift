import BinderyRuntime
import Foundation
import Graph
import Inbox
import OneDrive
import Spark
import Testing

/// `bindery validate`'s engine: finding the operation behind a captured URL, decoding real-shaped bodies with the
/// generated types, listing undeclared fields and re-encoding.
@Suite struct ValidateTests {
    let onedrive = PayloadValidator(OneDriveService.descriptor)
    let spark = PayloadValidator(SparkService.descriptor)

    @Test func capturedURLsFindTheirOperation() throws {
        let bases = [OneDriveClient.defaultBaseURL, OneDriveClient.consumerBaseURL]
        func kind(_ method: HTTPRequest.Method, _ url: String) -> String? {
            onedrive.responseKind(method: method, path: PayloadValidator.path(of: url, below: bases))
                .map { "\($0)" }
        }
        #expect(
            PayloadValidator.path(of: "https://graph.microsoft.com/v1.0/me/drive/root?$expand=children", below: bases)
                == "/me/drive/root")
        #expect(
            PayloadValidator.path(of: "https://api.onedrive.com/v1.0/drive/items/A1", below: bases) == "/drive/items/A1"
        )
        #expect(PayloadValidator.path(of: "/v1.0/drives/b!1", below: bases) == "/drives/b!1")
        #expect(PayloadValidator.path(of: "https://elsewhere.example/x/y", below: bases) == "/x/y")
        // Concrete ids and {placeholders} both stand for a key.
        let item = onedrive.responseKind(method: .get, path: "/me/drive/items/{item-id}")
        #expect(item.map(PayloadValidator.name(of:)) == "microsoft.graph.driveItem")
        let children = onedrive.responseKind(method: .get, path: "/drives/b%21x/items/01ABC/children")
        #expect(children.map(PayloadValidator.name(of:)) == "Collection(microsoft.graph.driveItem)")
        let delta = onedrive.responseKind(method: .get, path: "/me/drive/root/delta(token='abc')")
        #expect(delta.map(PayloadValidator.name(of:)) == "Collection(microsoft.graph.driveItem)")
        let session = onedrive.responseKind(method: .post, path: "/me/drive/items/1/createUploadSession")
        #expect(session.map(PayloadValidator.name(of:)) == "microsoft.graph.uploadSession")
        #expect(kind(.get, "/me/drive/nothing/here") == nil)
    }

    @Test func legacyOneDriveSegmentsAndTypeNamesFindTheCurrentOperations() throws {
        func operation(_ method: HTTPRequest.Method, _ path: String) -> String? {
            onedrive.response(method: method, path: path)?.name
        }
        #expect(operation(.post, "/drive/items/A1/action.copy") == "microsoft.graph.driveItem/copy")
        #expect(operation(.post, "/drive/items/A1/action.createLink") == "microsoft.graph.driveItem/createLink")
        #expect(operation(.post, "/drive/items/A1/action.invite") == "microsoft.graph.driveItem/invite")
        #expect(
            operation(.post, "/drive/items/A1/upload.createSession")
                == "microsoft.graph.driveItem/createUploadSession")
        #expect(operation(.get, "/drive/root/view.search") == "microsoft.graph.driveItem/search")
        #expect(operation(.get, "/drive/view.recent") == "microsoft.graph.drive/recent")
        #expect(operation(.get, "/drive/view.sharedWithMe") == "microsoft.graph.drive/sharedWithMe")
        let delta = onedrive.responseKind(method: .get, path: "/drive/root/view.delta")
        #expect(delta.map(PayloadValidator.name(of:)) == "Collection(microsoft.graph.driveItem)")
        let share = onedrive.responseKind(method: .get, path: "/shares/s!AbC/root")
        #expect(share.map(PayloadValidator.name(of:)) == "microsoft.graph.driveItem")
        // `bindery validate --type` takes the legacy type names too.
        for (legacy, current) in [
            ("oneDrive.item", "microsoft.graph.driveItem"), ("oneDrive.share", "microsoft.graph.sharedDriveItem"),
            ("oneDrive.asyncOperationStatus", "microsoft.graph.asyncJobStatus"),
            ("oneDrive.recipients", "microsoft.graph.driveRecipient"),
        ] {
            #expect(onedrive.kind(named: legacy).map(PayloadValidator.name(of:)) == current)
        }
    }

    @Test func theQueryPicksAVariantAtTheSameURL() throws {
        let inbox = PayloadValidator(InboxService.descriptor)
        let path = "/n/ns/threads"
        #expect(inbox.response(method: .get, path: path)?.name == "inbox.Thread/listThreads")
        #expect(inbox.response(method: .get, path: path, query: [("view", "count")])?.name == "inbox.Thread/count")
        #expect(
            inbox.response(method: .get, path: path, query: [("tag", "unread"), ("view", "ids")])?.name
                == "inbox.Thread/ids")
        // Another value of the parameter is no variant: the plain listing.
        #expect(
            inbox.response(method: .get, path: path, query: [("view", "other")])?.name == "inbox.Thread/listThreads")
        let count = try #require(inbox.responseKind(method: .get, path: path, query: [("view", "count")]))
        #expect(PayloadValidator.name(of: count) == "inbox.MatchCount")
        #expect(inbox.validate(Array(#"{"count": 3}"#.utf8), as: count).isValid)
        let ids = try #require(inbox.responseKind(method: .get, path: path, query: [("view", "ids")]))
        #expect(inbox.validate(Array(#"["a", "b"]"#.utf8), as: ids).isValid)
        #expect(!inbox.validate(Array(#"[{"id": "a"}]"#.utf8), as: ids).decoded)
    }

    /// Upload-session ranges and downloads are answered on storage hosts, at URLs payloads carry: Graph's spec
    /// declares them (`Specs/Graph/StorageHosts.csdl-schema.xml`), and the validator knows which answer is which.
    @Test func storageHostAnswersFindTheirRequest() throws {
        let graph = PayloadValidator(GraphService.descriptor)
        let upload = "https://sn3302.up.1drv.com/up/fe6987415ace7X4e1eF866337"
        let ranges = graph.storageRoutes(method: .put, url: upload)
        #expect(ranges.map(\.name) == ["uploadRange", "uploadLastRange"])
        let pending = Array(#"{"expirationDateTime":"2026-11-26T01:00:00Z","nextExpectedRanges":["26214400-"]}"#.utf8)
        #expect(graph.storageAnswer(pending, candidates: ranges)?.route.name == "uploadRange")
        let finished = Array(
            #"{"id":"01BYE5RZ","name":"video.mp4","size":52428800,"file":{"mimeType":"video/mp4","hashes":{"quickXorHash":"AAAA"}}}"#
                .utf8)
        let last = try #require(graph.storageAnswer(finished, candidates: ranges))
        #expect(last.route.name == "uploadLastRange")
        #expect(last.report?.isValid == true)
        let download = graph.storageRoutes(method: .get, url: "https://public.bn1304.livefilestore.com/y2m/file.mp4")
        #expect(download.map(\.name).contains("download"))
        #expect(graph.storageAnswer([0xFF, 0xD8, 0xFF], candidates: download)?.route.isRawBody == true)
        // A GET answered with the session's JSON is the status request, not a download.
        #expect(graph.storageAnswer(pending, candidates: download)?.route.name == "uploadStatus")
        // Graph's own host is the API, not a storage host.
        #expect(graph.storageRoutes(method: .put, url: "https://graph.microsoft.com/v1.0/me/drive/root").isEmpty)
    }

    @Test func aDeleteAnswersNoContentInTheServicesOwnWay() throws {
        let delete = try #require(onedrive.response(method: .delete, path: "/me/drive/items/A1"))
        #expect(delete.kind == nil && delete.name == "DELETE of a microsoft.graph.driveItem")
        #expect(onedrive.isNoContent([]))
        #expect(onedrive.isNoContent(Array(" \n".utf8)))
        #expect(onedrive.isNoContent(Array("{}".utf8)))
        #expect(!onedrive.isNoContent(Array(#"{"id":"A1"}"#.utf8)))
        // Spark's bare success, with or without an empty list of results; a result or a failure is content.
        #expect(spark.isNoContent(Array(#"{"D":{"Success":true}}"#.utf8)))
        #expect(spark.isNoContent(Array(#"{"D":{"Success":true,"Results":[]}}"#.utf8)))
        #expect(!spark.isNoContent(Array(#"{"D":{"Success":true,"Results":[{"Id":"1"}]}}"#.utf8)))
        #expect(!spark.isNoContent(Array(#"{"D":{"Success":false,"Code":1500}}"#.utf8)))
        #expect(!spark.isNoContent(Array("not json".utf8)))
    }

    @Test func aGoodPageDecodesListsUnknownFieldsAndRoundTrips() throws {
        let body = #"""
            {"@odata.context":"x","value":[
              {"id":"1","name":"a.txt","size":12,"bundle":{"childCount":2},"thumbnails@odata.nextLink":"https://x",
               "parentReference":{"id":"r","driveAlias":"s"}},
              {"id":"2","@odata.type":"#microsoft.graph.driveItem","folder":{"childCount":1}}],
             "@odata.nextLink":"https://graph.microsoft.com/v1.0/next"}
            """#
        let report = onedrive.validate(
            bytes(body), as: try #require(onedrive.kind(named: "Collection(microsoft.graph.driveItem)")))
        #expect(report.decoded && report.roundTrips && report.isValid)
        #expect(report.itemCount == 2)
        #expect(report.unknownFields == ["$.value[0].bundle", "$.value[0].parentReference.driveAlias"])
    }

    @Test func aBadValueIsReportedAtItsPath() throws {
        let kind = try #require(onedrive.kind(named: "Collection(microsoft.graph.driveItem)"))
        let report = onedrive.validate(
            bytes(#"{"value":[{"id":"1"},{"id":"2","parentReference":{"driveId":7}}]}"#), as: kind)
        #expect(!report.isValid)
        #expect(report.failure?.jsonPath == "$.value[1].parentReference.driveId")
        let malformed = onedrive.validate(bytes(#"{"value":[{"id":"1"}"#), as: kind)
        #expect(malformed.failure?.message.hasPrefix("malformed JSON") == true)
        #expect(onedrive.kind(named: "microsoft.graph.nothing") == nil)
    }

    @Test func sparkBodiesAreReadInsideTheirEnvelope() throws {
        let listing = try #require(spark.responseKind(method: .get, path: "/listings/20060412165917817933000000"))
        let good = spark.validate(
            bytes(
                #"{"D":{"Success":true,"Results":[{"Id":20060412165917817933000000,"StandardFields":{"ListPrice":"250000.0","X_Custom":1}}]}}"#
            ), as: listing)
        #expect(good.isValid)
        #expect(good.unknownFields == ["$.D.Results[0].StandardFields.X_Custom"])
        let bad = spark.validate(
            bytes(#"{"D":{"Success":true,"Results":[{"Id":"1","StandardFields":{"ListPrice":"cheap"}}]}}"#), as: listing
        )
        #expect(bad.failure?.jsonPath == "$.D.Results[0].StandardFields.ListPrice")
    }

    @Test func graphPolymorphismAndInboxDiscriminatorsAreFollowed() throws {
        let graph = PayloadValidator(GraphService.descriptor)
        let message = try #require(graph.kind(named: "microsoft.graph.message"))
        let attachment = graph.validate(
            bytes(
                ##"{"id":"m","attachments":[{"@odata.type":"#microsoft.graph.fileAttachment","contentBytes":"AA==","contentId":"c"}]}"##
            ), as: message)
        #expect(attachment.isValid && attachment.unknownFields.isEmpty)
        let inbox = PayloadValidator(InboxService.descriptor)
        let event = try #require(inbox.kind(named: "inbox.Event"))
        let span = inbox.validate(
            bytes(#"{"id":"e","when":{"object":"datespan","start_date":"2014-01-01","end_date":"2014-01-02"}}"#),
            as: event)
        #expect(span.isValid && span.unknownFields.isEmpty)
        let wrong = inbox.validate(bytes(#"{"id":"e","when":{"object":"datespan","start_date":"soon"}}"#), as: event)
        #expect(wrong.failure?.jsonPath == "$.when.start_date")
    }

    /// A `$batch` answer, step by step: each body against the operation its request named, a failed step as an
    /// error body, a step without a body where the operation answers none.
    @Test func batchAnswersAreCheckedStepByStep() throws {
        let request = bytes(
            #"""
            {"requests": [
              {"id": "1", "method": "GET", "url": "/me/drive/root?$select=id,name"},
              {"id": "2", "method": "GET", "url": "/me/drive/items/A1/children"},
              {"id": "3", "method": "DELETE", "url": "/me/drive/items/A2"},
              {"id": "4", "method": "GET", "url": "/me/drive/items/A3"}
            ]}
            """#)
        let answer = #"""
            {"responses": [
              {"id": "1", "status": 200, "body": {"id": "root", "name": "root", "x_new": 1}},
              {"id": "2", "status": 200, "body": {"value": [{"id": "c1", "parentReference": {"driveId": BAD}}]}},
              {"id": "3", "status": 204},
              {"id": "4", "status": 404, "body": {"error": {"code": "itemNotFound", "message": "No item."}}}
            ]}
            """#
        let good = onedrive.validateBatch(
            bytes(answer.replacingOccurrences(of: "BAD", with: #""d1""#)), request: request)
        #expect(good.isValid && good.failure == nil && good.steps.count == 4)
        #expect(
            good.steps.map { $0.request } == [
                "GET /me/drive/root?$select=id,name", "GET /me/drive/items/A1/children", "DELETE /me/drive/items/A2",
                "GET /me/drive/items/A3",
            ])
        guard case .payload(let operation, let root) = good.steps[0].outcome else {
            Issue.record("step 1 is a payload: \(good.steps[0].outcome)")
            return
        }
        #expect(operation.contains("driveItem") && root.unknownFields == ["$.x_new"])
        guard case .noContent = good.steps[2].outcome, case .error(let missing) = good.steps[3].outcome else {
            Issue.record("steps 3 and 4: \(good.steps[2].outcome), \(good.steps[3].outcome)")
            return
        }
        #expect(missing.code == "itemNotFound")

        // A step whose body is not what its operation answers fails the whole answer, at its path.
        let bad = onedrive.validateBatch(bytes(answer.replacingOccurrences(of: "BAD", with: "7")), request: request)
        #expect(!bad.isValid)
        guard case .payload(_, let children) = bad.steps[1].outcome else {
            Issue.record("step 2 is a payload: \(bad.steps[1].outcome)")
            return
        }
        #expect(children.failure?.jsonPath == "$.value[0].parentReference.driveId")

        // Without the request, a successful step cannot be placed; an answer that is not a batch is refused.
        let unplaced = onedrive.validateBatch(bytes(answer.replacingOccurrences(of: "BAD", with: "7")), request: nil)
        #expect(!unplaced.isValid)
        #expect(onedrive.validateBatch(bytes(#"{"value": []}"#), request: nil).failure != nil)
    }
}

/// `bindery validate --error`: an error body is read in the service's dialect, as a client reads a failed response.
@Suite struct ValidateErrorBodyTests {
    @Test func eachServicesErrorShapeIsRecognized() {
        let graph = PayloadValidator(GraphService.descriptor)
            .validateError(
                Array(
                    #"""
                    {"error":{"code":"itemNotFound","message":"The resource could not be found.",
                     "innerError":{"date":"2026-11-25T03:00:00","request-id":"b2c1"}}}
                    """#.utf8))
        #expect(graph.isRecognized && graph.shape == .odata)
        #expect(graph.code == "itemNotFound" && graph.message == "The resource could not be found.")
        #expect(graph.requestID == "b2c1")

        let spark = PayloadValidator(SparkService.descriptor)
            .validateError(Array(#"{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}"#.utf8))
        #expect(spark.isRecognized && spark.code == "1020" && spark.message == "Session token has expired")

        let inbox = PayloadValidator(InboxService.descriptor)
            .validateError(Array(#"{"type":"invalid_request_error","message":"Invalid tag"}"#.utf8))
        #expect(inbox.isRecognized && inbox.code == "invalid_request_error")
    }

    @Test func aBodyOfAnotherShapeIsNotRecognized() {
        let graph = PayloadValidator(GraphService.descriptor)
        #expect(!graph.validateError(Array("<html><body>502 Bad Gateway</body></html>".utf8)).isRecognized)
        #expect(!graph.validateError(Array(#"{"value":[]}"#.utf8)).isRecognized)
        #expect(!graph.validateError([]).isRecognized)
    }
}
