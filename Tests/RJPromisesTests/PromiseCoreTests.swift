import Dispatch
import Foundation
import XCTest

@testable import RJPromises

final class PromiseCoreTests: PromiseTestCase {
    func testCreationStates() {
        let pending = Promise<Int>.pending()
        XCTAssertTrue(pending.isPending)
        XCTAssertNil(pending.fulfilledValue)
        let fulfilled = Promise(7)
        XCTAssertTrue(fulfilled.isFulfilled)
        XCTAssertEqual(fulfilled.fulfilledValue, 7)
        let rejected = Promise<Int>(TestError(code: 1))
        XCTAssertTrue(rejected.isRejected)
        XCTAssertEqual(rejected.error as? TestError, TestError(code: 1))
    }

    func testResolvingTwiceIsIgnored() {
        let p = Promise<Int>.pending()
        p.fulfill(1)
        p.fulfill(2)
        p.reject(TestError(code: 1))
        XCTAssertEqual(value(p), 1)
        let q = Promise<Int>.pending()
        q.reject(TestError(code: 2))
        q.fulfill(3)
        XCTAssertEqual(error(q) as? TestError, TestError(code: 2))
    }

    func testAsyncInitRunsWorkOnQueueAndSettles() {
        let p = Promise<String>(on: .global()) { fulfill, _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { fulfill("later") }
        }
        XCTAssertEqual(value(p), "later")
        let thrown = Promise<String>(on: .global()) { _, _ in throw TestError(code: 5) }
        XCTAssertEqual(error(thrown) as? TestError, TestError(code: 5))
    }

    func testDoInitWithValuePromiseAndThrow() {
        XCTAssertEqual(value(Promise<Int>(on: .global()) { 3 }), 3)
        XCTAssertEqual(value(Promise<Int>(on: .global()) { Promise(4).delay(0.01) }), 4)
        XCTAssertEqual(error(Promise<Int>(on: .global()) { () throws -> Int in throw TestError(code: 6) }) as? TestError,
                       TestError(code: 6))
    }

    func testBlocksRunAsynchronouslyEvenWhenAlreadyResolved() {
        let ran = Recorder<Int>()
        let p = Promise(1)
        queue.sync {
            // We hold the serial queue: the block cannot have run when `then` returns.
            p.then(on: queue) { ran.add($0) }
            XCTAssertEqual(ran.all, [])
        }
        drain()
        XCTAssertEqual(ran.all, [1])
    }

    func testBlocksRunInRegistrationOrderOnASerialQueue() {
        let order = Recorder<Int>()
        let p = Promise<Int>.pending()
        for i in 0..<50 { p.then(on: queue) { _ in order.add(i) } }
        p.fulfill(0)
        for i in 50..<100 { p.then(on: queue) { _ in order.add(i) } }
        drain()
        XCTAssertEqual(order.all, Array(0..<100))
    }

    func testResolveWithResult() {
        let p = Promise<Int>.pending()
        p.resolve(with: .success(9))
        XCTAssertEqual(value(p), 9)
    }

    func testDescriptionNamesTheTypeAndTheState() {
        XCTAssertEqual("\(Promise(1))", "Promise<Int>(fulfilled: 1)")
        XCTAssertEqual("\(Promise<Int>.pending())", "Promise<Int>(pending)")
    }

    func testDefaultQueueIsConfigurable() {
        XCTAssertTrue(DispatchQueue.promises === queue)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let seen = Recorder<Int?>()
        let done = Promise(1).then { _ in seen.add(DispatchQueue.getSpecific(key: key)) }
        _ = value(done)
        XCTAssertEqual(seen.all, [42])
    }
}
