import Foundation

/// ISO 8601 date-times as OData and its peers send them, parsed by hand: formatters are slow and
/// `ISO8601DateFormatter` rejects 7 fractional digits.
///
/// Accepted: `2017-04-21T10:00:00Z`, `...00.1234567Z`, `...00+02:00`, `...00-0530`, and no offset at all
/// (`2017-04-21T10:00:00.0000000`, sent with a separate `timeZone`), which is read as UTC.
/// The wire text stays in the model, so reading a date never changes what is re-encoded.
public enum ISO8601 {
    public static func parseDateTime(_ text: String) -> Date? {
        // In place: a property read parses its date each time, and copying the text out cost as much as parsing.
        // Native strings lend their bytes as they are; only a bridged one is copied.
        if let parsed = text.utf8.withContiguousStorageIfAvailable(parseDateTime(bytes:)) {
            return parsed  // the parser's answer, nil included: only the bytes' availability is optional here
        }
        var text = text
        return text.withUTF8 { parseDateTime(bytes: $0) }
    }

    private static func parseDateTime(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        guard let (year, month, day) = parseDatePart(bytes, &index), index < bytes.count,
            bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == 0x20
        else { return nil }
        index += 1
        guard let hour = digits(bytes, &index, 2), expect(bytes, &index, ":"), let minute = digits(bytes, &index, 2)
        else { return nil }
        var second = 0
        var fraction = 0.0
        if expect(bytes, &index, ":") {
            guard let parsed = digits(bytes, &index, 2) else { return nil }
            second = parsed
            if expect(bytes, &index, ".") || expect(bytes, &index, ",") {
                var scale = 0.1
                let start = index
                while index < bytes.count, let digit = digitValue(bytes[index]) {
                    fraction += Double(digit) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let offsetHours = digits(bytes, &index, 2) else { return nil }
                _ = expect(bytes, &index, ":")
                let offsetMinutes = digits(bytes, &index, 2) ?? 0
                offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            default:
                return nil
            }
        }
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day), hour <= 24, minute < 60,
            second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // In Int64: on a 32-bit watch, Int overflows for dates outside 1901–2038 (Graph's 0001-01-01 included).
        let seconds =
            Double(Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// `2017-04-21T10:00:00.123Z`: UTC, with milliseconds only when there are some.
    public static func format(_ date: Date) -> String {
        let total = date.timeIntervalSince1970
        // In Int64 until split into days and the time of day: Int is 32 bits on some watches.
        var seconds = Int64(total.rounded(.down))
        var millis = Int(((total - Double(seconds)) * 1000).rounded())
        if millis == 1000 {
            seconds += 1
            millis = 0
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay % 3600 / 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if millis > 0 { text += "." + pad(millis, 3) }
        return text + "Z"
    }

    @inline(__always)
    static func parseDatePart(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> (Int, Int, Int)? {
        guard let year = digits(bytes, &index, 4), expect(bytes, &index, "-"), let month = digits(bytes, &index, 2),
            expect(bytes, &index, "-"), let day = digits(bytes, &index, 2)
        else { return nil }
        return (year, month, day)
    }

    @inline(__always)
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            guard let digit = digitValue(bytes[index + offset]) else { return nil }
            value = value * 10 + digit
        }
        index += count
        return value
    }

    @inline(__always)
    static func expect(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    @inline(__always)
    static func digitValue(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    // Howard Hinnant's days-from-civil algorithms: exact for the proleptic Gregorian calendar, no Calendar needed.
    @inline(__always)
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Date: JSONConvertible {
    public static var fieldKind: FieldKind { .dateTime }

    public init?(json: JSONValue) {
        guard case .string(let text) = json, let date = ISO8601.parseDateTime(text) else { return nil }
        self = date
    }

    /// Also reads Unix seconds, as the Inbox API sends them.
    public init?(looseJSON: JSONValue) {
        if case .number(let number) = looseJSON, let seconds = number.doubleValue {
            self = Date(timeIntervalSince1970: seconds)
        } else {
            self.init(json: looseJSON)
        }
    }

    public var json: JSONValue { .string(ISO8601.format(self)) }
}

/// A calendar date without a time (`Edm.Date`, `2017-04-21`).
public struct CalendarDate: Hashable, Comparable, Sendable, JSONConvertible, CustomStringConvertible {
    public static var fieldKind: FieldKind { .date }

    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public init?(_ text: String) {
        var text = text
        let parsed = text.withUTF8 { bytes -> (Int, Int, Int)? in
            var index = 0
            guard let date = ISO8601.parseDatePart(bytes, &index), index == bytes.count else { return nil }
            return date
        }
        guard let (year, month, day) = parsed, (1...12).contains(month), (1...31).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self.init(text)
    }

    public var json: JSONValue { .string(description) }

    public var description: String {
        ISO8601.pad(year, 4) + "-" + ISO8601.pad(month, 2) + "-" + ISO8601.pad(day, 2)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// A time of day without a date (`Edm.TimeOfDay`, `14:30:00.0000000`).
public struct TimeOfDay: Hashable, Comparable, Sendable, JSONConvertible, CustomStringConvertible {
    public static var fieldKind: FieldKind { .timeOfDay }

    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Fractional seconds as written (up to 7 digits in OData), kept as text so nothing is rounded.
    public var fraction: String

    public init(hour: Int, minute: Int, second: Int = 0, fraction: String = "") {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fraction = fraction
    }

    public init?(_ text: String) {
        var text = text
        guard let (hour, minute, second, fraction) = text.withUTF8(TimeOfDay.parse) else { return nil }
        self.init(hour: hour, minute: minute, second: second, fraction: fraction)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int, Int, String)? {
        var index = 0
        guard let hour = ISO8601.digits(bytes, &index, 2), ISO8601.expect(bytes, &index, ":"),
            let minute = ISO8601.digits(bytes, &index, 2), hour < 24, minute < 60
        else { return nil }
        var second = 0
        var fraction = ""
        if ISO8601.expect(bytes, &index, ":") {
            guard let parsed = ISO8601.digits(bytes, &index, 2), parsed < 61 else { return nil }
            second = parsed
            if ISO8601.expect(bytes, &index, ".") {
                let start = index
                while index < bytes.count, ISO8601.digitValue(bytes[index]) != nil { index += 1 }
                guard index > start else { return nil }
                fraction = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
        }
        guard index == bytes.count else { return nil }
        return (hour, minute, second, fraction)
    }

    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self.init(text)
    }

    public var json: JSONValue { .string(description) }

    public var description: String {
        let base = ISO8601.pad(hour, 2) + ":" + ISO8601.pad(minute, 2) + ":" + ISO8601.pad(second, 2)
        return fraction.isEmpty ? base : base + "." + fraction
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.hour, lhs.minute, lhs.second, lhs.fraction) < (rhs.hour, rhs.minute, rhs.second, rhs.fraction)
    }
}
