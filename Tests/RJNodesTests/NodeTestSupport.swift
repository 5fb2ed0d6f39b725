import Foundation
import XCTest

@testable import RJNodes

/// Records what listeners print, from any thread.
final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func print(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// An owner for listeners, whose lifetime the tests control.
final class Owner: Sendable {}
