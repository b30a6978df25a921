import Foundation
import Testing

@testable import BinderyRuntime

/// The hand-written HTTP date parser against Foundation's formatter, over dates spread across four centuries.
@Suite struct HTTPDateTests {
    static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    /// Every 9,973,111 seconds (about 115 days, so every day of the month and leap days come round) from 1900.
    static let dates = stride(from: -2_208_988_800.0, through: 10_000_000_000, by: 9_973_111).map {
        Date(timeIntervalSince1970: $0)
    }

    /// Graph's "no date" (0001-01-01) and the last representable day read and write exactly. (The seconds are
    /// counted in Int64: on a 32-bit watch an Int would trap outside 1901–2038; this machine cannot run that.)
    @Test func isoDateTimesAtTheEndsOfTheCalendarReadAndWriteBack() {
        let cases: [(String, TimeInterval)] = [
            ("0001-01-01T00:00:00Z", -62_135_596_800), ("9999-12-31T23:59:59.5Z", 253_402_300_799.5),
            ("2040-02-29T12:00:00Z", 2_214_129_600),
        ]
        for (text, seconds) in cases {
            #expect(ISO8601.parseDateTime(text) == Date(timeIntervalSince1970: seconds), "\(text)")
            #expect(
                ISO8601.format(Date(timeIntervalSince1970: seconds))
                    == text.replacingOccurrences(of: ".5Z", with: ".500Z"))
        }
    }

    @Test func imfFixdateAndAsctimeAgreeWithFoundation() {
        let imf = Self.formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'")
        let asctime = Self.formatter("EEE MMM d HH:mm:ss yyyy")
        for date in Self.dates {
            let fixdate = imf.string(from: date)
            #expect(HTTPDate.parse(fixdate) == date, "\(fixdate)")
            // asctime pads a one-digit day with a space: "Sun Nov  6 08:49:37 1994".
            let padded = asctime.string(from: date).replacingOccurrences(
                of: #" (\d) "#, with: "  $1 ", options: .regularExpression)
            #expect(HTTPDate.parse(padded) == date, "\(padded)")
        }
    }

    @Test func rfc850TwoDigitYearsAreTheNearestPastCentury() throws {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        let thisYear = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: Date())
            .year!
        // Up to 50 years ahead is read as ahead; further is the previous century.
        let soon = try #require(
            HTTPDate.parse(String(format: "Monday, 01-Jan-%02d 00:00:00 GMT", (thisYear + 10) % 100)))
        let farAhead = try #require(
            HTTPDate.parse(String(format: "Monday, 01-Jan-%02d 00:00:00 GMT", (thisYear + 60) % 100)))
        let year = { (date: Date) in
            Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: date).year!
        }
        #expect(year(soon) == thisYear + 10)
        #expect(year(farAhead) == thisYear + 60 - 100)
    }

    @Test(arguments: [
        "", "GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37:00 GMT",
        "Sun, 06 Nox 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 19945 08:49:37 GMT", "Sun, 06 Nov ١٩٩٤ 08:49:37 GMT", "Sun Nov 6 08:49:37 94",
        "Sun, 000000000000000000006 Nov 1994 08:49:37 GMT",
    ])
    func malformedDatesAreNil(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func aLeapSecondAndLeapDayAreRead() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT") == Date(timeIntervalSince1970: 1_709_251_200))
    }
}
