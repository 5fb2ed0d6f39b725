import Dispatch
import Foundation
import XCTest

@testable import RJPromises

/// google/promises' `waitForPromises(timeout:)`: tests wait for every promise and block, with no
/// expectation per promise.
final class PromiseTestingModeTests: PromiseTestCase {
    override func setUp() {
        super.setUp()
        Promises.isTestingMode = true
    }

    override func tearDown() {
        Promises.isTestingMode = false
        super.tearDown()
    }

    func testWaitsForChainsDelaysAndBlocks() {
        let log = Recorder<String>()
        Promise(on: .global()) { 1 }
            .delay(0.02)
            .then(on: queue) { n in Promise(n + 1).delay(0.01) }
            .then(on: queue) { n in log.add("got \(n)") }
        let failing = Promise<Int>.pending()
        failing.catch(on: queue) { _ in log.add("caught") }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.03) { failing.reject(TestError(code: 1)) }
        XCTAssertTrue(waitForPromises(timeout: 5))
        XCTAssertEqual(Set(log.all), ["got 2", "caught"])
    }

    func testAPromiseThatNeverSettlesTimesOutUntilItSettles() {
        let stuck = Promise<Int>.pending()
        let start = DispatchTime.now()
        XCTAssertFalse(waitForPromises(timeout: 0.05))
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 50_000_000)
        stuck.fulfill(1)
        XCTAssertTrue(waitForPromises(timeout: 5))
    }

    func testAPendingPromiseThatGoesAwayIsNotWaitedFor() {
        do { _ = Promise<Int>.pending().then(on: queue) { _ in } }
        XCTAssertTrue(waitForPromises(timeout: 5))
    }

    /// On the main thread it runs the main run loop, so blocks on the main queue run while it
    /// waits (on Linux nothing else runs them).
    func testOnTheMainThreadBlocksOnTheMainQueueRun() {
        XCTAssertTrue(Thread.isMainThread)
        let log = Recorder<String>()
        Promise(3).then(on: .main) { n in log.add("main \(n) \(Thread.isMainThread)") }
        XCTAssertTrue(waitForPromises(timeout: 5))
        XCTAssertEqual(log.all, ["main 3 true"])
    }

    func testPromisesMadeBeforeTestingModeAreNotWaitedFor() {
        Promises.isTestingMode = false
        let before = Promise<Int>.pending()
        Promises.isTestingMode = true
        XCTAssertTrue(waitForPromises(timeout: 5))
        before.fulfill(1)
    }
}
