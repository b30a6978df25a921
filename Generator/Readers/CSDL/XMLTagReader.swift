import CLibXML2
// Beside CLibXML2, for `Thread`: CLibXML2/shim.h hides libxml2's ICU headers, which would clash with Foundation's.
import Foundation
import Synchronization

/// libxml2 must be initialised once before threads use it concurrently (tests read documents in parallel).
private let libxml2Initialized: Void = xmlInitParser()

/// One start tag as libxml2's reader saw it, copied out of the reader, whose strings last only until its next step.
struct XMLStartTag: Sendable {
    var element: CSDLElement
    /// How deep in the document: the root element is at 0.
    var depth: Int
    var isEmpty: Bool
    /// The line on which the tag ends, which is where libxml2 records an element.
    var endLine: Int
    /// The name as written, prefix included (`edmx:Edmx`): a range of the batch's `bytes`.
    var name: Range<Int>
    /// The attributes the CSDL pass reads, in document order: a range of the batch's `attributes`.
    var attributes: Range<Int>
    /// A `<String>` element's text: a range of the batch's `bytes`.
    var text: Range<Int>?
}

/// Start tags in document order, with the bytes their names, attribute values and texts lie in.
struct XMLTagBatch: Sendable {
    var tags: [XMLStartTag] = []
    var attributes: [(attribute: CSDLAttribute, value: Range<Int>)] = []
    var bytes: [UInt8] = []
}

/// Reads a document with libxml2's streaming reader on a thread of its own and hands its start tags over in
/// batches, in order. Reading Graph's 3.5 MB was half libxml2 and half the CSDL pass, one after the other on one
/// core; now they run side by side.
///
/// Every element is visited (a subtree the CSDL pass skips costs libxml2 its parsing either way); only the
/// attributes `CSDLAttribute` names are copied.
final class XMLTagReader: Sendable {
    /// What the reader thread reported when it stopped.
    struct Outcome: Sendable {
        /// libxml2's errors, at most ten (those after a fatal one only echo it).
        var errors: [XMLReadError] = []
        /// The reader's last status: 0 at the end of the document, -1 after an error, or -2 when it did not start.
        var status: Int32 = 0
    }

    private struct Queue {
        var batches: [XMLTagBatch] = []
        var next = 0
        var outcome: Outcome?
    }

    private let queue = Mutex(Queue())
    /// Signalled once per batch handed over, and once more at the end.
    private let handedOver = DispatchSemaphore(value: 0)
    /// How many more batches the reader may hand over before the parser takes one: a parser that falls behind
    /// holds back the reader, instead of the whole document piling up.
    private let room = DispatchSemaphore(value: 16)
    private static let batchSize = 512

    /// Starts reading `bytes`, which the caller keeps alive until `next()` has returned nil.
    ///
    /// On a thread of its own, not a Dispatch worker: the caller waits for it, and may itself be one of the few
    /// workers (Swift concurrency's pool is as wide as the machine), which would leave none to do the reading.
    init(bytes: UnsafeBufferPointer<UInt8>, path: String) {
        _ = libxml2Initialized
        nonisolated(unsafe) let bytes = bytes
        let thread = Thread { [self] in
            let outcome = read(bytes, path: path)
            queue.withLock { $0.outcome = outcome }
            handedOver.signal()
        }
        thread.name = "bindery.xml-reader"
        thread.start()
    }

    /// The next batch of start tags, waiting for the reader thread; nil once it has stopped and every batch was
    /// taken (`outcome` then says how it stopped).
    func next() -> XMLTagBatch? {
        // Asked again after the end: the end's signal was taken already.
        if queue.withLock({ $0.outcome != nil && $0.next == $0.batches.count }) { return nil }
        handedOver.wait()
        let batch = queue.withLock { queue -> XMLTagBatch? in
            guard queue.next < queue.batches.count else { return nil }
            // The taken batch's slot is emptied, so its memory goes as soon as the parser is done with it.
            defer { queue.next += 1 }
            return queue.batches[queue.next].taken()
        }
        if batch != nil { room.signal() }
        return batch
    }

    /// How the reader stopped; set once `next()` has returned nil.
    var outcome: Outcome { queue.withLock { $0.outcome ?? Outcome() } }

    private func handOver(_ batch: XMLTagBatch) {
        room.wait()
        queue.withLock { $0.batches.append(batch) }
        handedOver.signal()
    }

    /// The reader thread's work: every start tag into batches, handed over as each fills up.
    private func read(_ bytes: UnsafeBufferPointer<UInt8>, path: String) -> Outcome {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_BIG_LINES.rawValue)
        let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
        guard let reader = xmlReaderForMemory(base, Int32(bytes.count), path, nil, options) else {
            return Outcome(status: -2)
        }
        defer { xmlFreeTextReader(reader) }
        let sink = XMLErrorSink()
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                Unmanaged<XMLErrorSink>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
            },
            Unmanaged.passUnretained(sink).toOpaque()
        )
        let elementNode = Int32(XML_READER_TYPE_ELEMENT.rawValue)
        var batch = XMLTagBatch()
        var status: Int32 = 1
        withExtendedLifetime(sink) {
            while true {
                status = xmlTextReaderRead(reader)
                guard status == 1 else { break }
                guard xmlTextReaderNodeType(reader) == elementNode else { continue }
                batch.append(reader)
                if batch.tags.count == Self.batchSize {
                    handOver(batch)
                    batch = XMLTagBatch()
                }
            }
        }
        if !batch.tags.isEmpty { handOver(batch) }
        return Outcome(errors: sink.errors, status: status)
    }
}

extension XMLTagBatch {
    /// Copies the element the reader is on.
    fileprivate mutating func append(_ reader: OpaquePointer) {
        let element = CSDLElement(localName: xmlTextReaderConstLocalName(reader))
        let name = append(cString: xmlTextReaderConstName(reader))
        let endLine = Int(xmlGetLineNo(xmlTextReaderCurrentNode(reader)))
        let attributesStart = attributes.count
        if xmlTextReaderMoveToFirstAttribute(reader) == 1 {
            repeat {
                if let attribute = CSDLAttribute(localName: xmlTextReaderConstLocalName(reader)) {
                    attributes.append((attribute, append(cString: xmlTextReaderConstValue(reader))))
                }
            } while xmlTextReaderMoveToNextAttribute(reader) == 1
            xmlTextReaderMoveToElement(reader)
        }
        var text: Range<Int>?
        if element == .string, let content = xmlTextReaderReadString(reader) {
            text = append(cString: content)
            cxml_free(content)
        }
        tags.append(
            XMLStartTag(
                element: element, depth: Int(xmlTextReaderDepth(reader)),
                isEmpty: xmlTextReaderIsEmptyElement(reader) == 1, endLine: endLine, name: name,
                attributes: attributesStart..<attributes.count, text: text))
    }

    private mutating func append(cString: UnsafePointer<xmlChar>?) -> Range<Int> {
        let start = bytes.count
        if let cString {
            bytes.append(
                contentsOf: UnsafeBufferPointer(
                    start: cString, count: strlen(UnsafeRawPointer(cString).assumingMemoryBound(to: CChar.self))))
        }
        return start..<bytes.count
    }

    /// This batch, leaving an empty one in its place.
    fileprivate mutating func taken() -> XMLTagBatch {
        defer { self = XMLTagBatch() }
        return self
    }
}

/// One error libxml2 reported, where it found it.
struct XMLReadError: Sendable {
    var message: String
    var line: Int
    var column: Int
}

/// Collects libxml2's errors instead of letting it print them to stderr.
private final class XMLErrorSink {
    private(set) var errors: [XMLReadError] = []

    func record(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        // Errors after a fatal one only echo it; a handful is enough to act on.
        guard errors.count < 10 else { return }
        var message = error.message.map { String(cString: $0) } ?? "malformed XML"
        while let last = message.last, last.isWhitespace { message.removeLast() }
        errors.append(XMLReadError(message: message, line: max(Int(error.line), 1), column: max(Int(error.int2), 1)))
    }
}
