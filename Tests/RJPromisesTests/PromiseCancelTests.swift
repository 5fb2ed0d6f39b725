import Dispatch
import Foundation
import XCTest

@testable import RJPromises

final class PromiseCancelTests: PromiseTestCase {
    func testCancelRejectsAndRunsOnCancel() {
        let ran = Recorder<String>()
        let p = Promise<Int>.pending()
        p.onCancel { ran.add("cancelled") }
        p.cancel()
        XCTAssertTrue(p.isCancelled)
        XCTAssertEqual(error(p) as? PromiseError, .cancelled)
        drain()
        XCTAssertEqual(ran.all, ["cancelled"])
    }

    func testCancelPropagatesToDerivedPromises() {
        let ran = Recorder<String>()
        let source = Promise<Int>.pending()
        let derived = source.then { v -> Int in ran.add("then"); return v }
        derived.onCancel { ran.add("derived cancelled") }
        let last = derived.then { _ in ran.add("then2") }.catch { _ in ran.add("catch") }
        source.cancel()
        XCTAssertEqual(error(last) as? PromiseError, .cancelled)
        XCTAssertTrue(derived.isCancelled)
        drain()
        XCTAssertEqual(Set(ran.all), ["derived cancelled", "catch"])
    }

    func testCancelAfterSettlingDoesNothing() {
        let ran = Recorder<String>()
        let p = Promise(1)
        p.onCancel { ran.add("no") }
        p.cancel()
        XCTAssertEqual(value(p), 1)
        drain()
        XCTAssertEqual(ran.all, [])
    }

    func testOnCancelStopsTheWorkBehind() {
        let stopped = Recorder<String>()
        final class TimerBox: @unchecked Sendable {
            let timer = DispatchSource.makeTimerSource(queue: .global())
        }
        let box = TimerBox()
        let p = Promise<Int>.pending()
        box.timer.schedule(deadline: .now() + 5)
        box.timer.setEventHandler { p.fulfill(1) }
        box.timer.resume()
        let handled = expectation(description: "handler")
        p.onCancel(on: .global()) {
            box.timer.cancel()
            stopped.add("timer stopped")
            handled.fulfill()
        }
        p.cancel()
        XCTAssertEqual(error(p) as? PromiseError, .cancelled)
        wait(for: [handled], timeout: 5)
        XCTAssertEqual(stopped.all, ["timer stopped"])
    }

    func testCancellingADerivedPromiseLeavesTheSourceAlone() {
        let source = Promise<Int>.pending()
        let derived = source.then { $0 + 1 }
        derived.cancel()
        source.fulfill(1)
        XCTAssertEqual(value(source), 1)
        XCTAssertEqual(error(derived) as? PromiseError, .cancelled)
    }
}
