import Dispatch
import Foundation
import RJLocks

extension DispatchGroup {
    /// The group every promise enters while it is pending, and every block of a promise while
    /// it is scheduled, when ``Promises/isTestingMode`` is on: google/promises' testing group.
    /// ``waitForPromises(timeout:)`` waits for it to empty.
    ///
    /// ```swift
    /// Promises.isTestingMode = true
    /// load().then { print($0) }
    /// XCTAssert(waitForPromises(timeout: 1))
    /// ```
    public static let promises = DispatchGroup()
}

/// Whether promises enter ``Dispatch/DispatchGroup/promises``; off unless a test turns it on.
@usableFromInline
let promisesTestingMode = RJAtomic<Bool>(false)

/// One relaxed load: the whole cost of the testing hooks outside testing mode.
@inlinable @inline(__always)
var inPromisesTestingMode: Bool { promisesTestingMode.load(ordering: .relaxed) }

extension Promises {
    /// Turns on the tracking that ``waitForPromises(timeout:)`` waits on: from then on, every
    /// promise created pending enters ``Dispatch/DispatchGroup/promises`` until it settles,
    /// and every block it schedules until the block has run. Off by default, unlike
    /// google/promises, where every promise always enters its group: that is a counter every
    /// thread writes on every promise, which a program should not pay for outside its tests.
    /// Promises created before it was turned on are not waited for.
    ///
    /// ```swift
    /// override func setUp() { Promises.isTestingMode = true }
    /// ```
    public static var isTestingMode: Bool {
        get { promisesTestingMode.load(ordering: .relaxed) }
        set { promisesTestingMode.store(newValue, ordering: .relaxed) }
    }
}

/// Waits until every promise created since ``Promises/isTestingMode`` was turned on has
/// settled and every block they scheduled has run, or `timeout` seconds have passed; returns
/// whether they all had. google/promises' `waitForPromises(timeout:)`, for tests. Called on the
/// main thread, it runs the main run loop while it waits, so blocks on the main queue run
/// (on Linux nothing else would run them).
///
/// A promise that never settles keeps it waiting until the timeout, as in google/promises.
///
/// ```swift
/// Promises.isTestingMode = true
/// var total = 0
/// Promise(1).then { total += $0 }
/// XCTAssert(waitForPromises(timeout: 1))
/// ```
@discardableResult
public func waitForPromises(timeout: Double) -> Bool {
    if !Promises.isTestingMode {
        fatalError("RJPromises: waitForPromises needs Promises.isTestingMode = true, set before the promises it waits for are made (in setUp, say)")
    }
    let deadline = DispatchTime.now() + max(0, timeout)
    if !Thread.isMainThread {
        return DispatchGroup.promises.wait(timeout: deadline) == .success
    }
    while DispatchGroup.promises.wait(timeout: .now()) == .timedOut {
        if DispatchTime.now() >= deadline { return false }
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
    }
    return true
}

extension Promise {
    /// Runs `work` on `queue`, inside ``Dispatch/DispatchGroup/promises`` in testing mode.
    @inlinable
    static func schedule(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        if inPromisesTestingMode {
            queue.async(group: .promises, execute: work)
        } else {
            queue.async(execute: work)
        }
    }
}
