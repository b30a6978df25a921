import Foundation

/// HTTP dates (RFC 9110 §5.6.7), as sent in `Retry-After` and `Date`.
///
/// Parsed by hand rather than with `DateFormatter`: a formatter costs tens of microseconds to build, and a server
/// chooses how many of these headers a client reads.
enum HTTPDate {
    /// Parses the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms. Anything else is nil.
    static func parse(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        let day: Int?
        let month: Int?
        let year: Int?
        let time: String
        switch fields.count {
        case 6 where fields[5] == "GMT":
            // IMF-fixdate or RFC 850: weekday, day, month, year (4 digits, or 2 in RFC 850), time, GMT.
            (day, month, time) = (number(fields[1], digits: 1...2), months[fields[2]], fields[4])
            year = number(fields[3], digits: 4...4) ?? number(fields[3], digits: 2...2).map(fullYear)
        case 5:
            // asctime: weekday, month, day, time, year.
            (month, day, time, year) = (
                months[fields[1]], number(fields[2], digits: 1...2), fields[3], number(fields[4], digits: 4...4)
            )
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map {
            number(String($0), digits: 2...2)
        }
        guard weekdays.contains(fields[0]), let day, let month, let year, clock.count == 3,
            let hour = clock[0], let minute = clock[1], let second = clock[2],
            (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        // In Int64: on a 32-bit watch, Int overflows from 2038.
        return Date(
            timeIntervalSince1970: TimeInterval(Int64(days) * 86_400 + Int64((hour * 60 + minute) * 60 + second)))
    }

    /// RFC 9110: a two-digit year more than 50 years in the future is the most recent past year ending so.
    private static func fullYear(_ twoDigits: Int) -> Int {
        let thisYear = 1970 + Int(Date().timeIntervalSince1970 / 31_556_952)
        let candidate = thisYear - thisYear % 100 + twoDigits
        return candidate > thisYear + 50 ? candidate - 100 : candidate
    }

    private static let weekdays: Set<String> = [
        "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]

    private static let months: [String: Int] = [
        "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
        "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
    ]

    /// ASCII digits only, of a length in `digits`.
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        let utf8 = text.utf8
        guard digits.contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return utf8.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
