import Dispatch
import Foundation
import XCTest

@testable import RJPromises

struct TestError: Error, Equatable {
    let code: Int
}

/// Collects values from several threads.
final class Recorder<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func add(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

class PromiseTestCase: XCTestCase {
    /// A serial queue the tests observe on, so that order is well defined.
    let queue = DispatchQueue(label: "rj.promises.tests")
    private var savedDefault: DispatchQueue!

    override func setUp() {
        super.setUp()
        savedDefault = DispatchQueue.promises
        // Linux's main queue only drains under dispatchMain(); tests use their own.
        DispatchQueue.promises = queue
    }

    override func tearDown() {
        DispatchQueue.promises = savedDefault
        super.tearDown()
    }

    /// Waits for `promise` to settle and returns its outcome.
    func settle<T>(_ promise: Promise<T>, timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line)
        -> Result<T, any Error>?
    {
        let done = expectation(description: "settled")
        let box = Recorder<Result<T, any Error>>()
        promise.observe(on: .global()) { [settled = promise.settledReference] in
            box.add(settled.take())
            done.fulfill()
        }
        wait(for: [done], timeout: timeout)
        return box.all.first
    }

    func value<T>(_ promise: Promise<T>, file: StaticString = #filePath, line: UInt = #line) -> T? {
        guard let outcome = settle(promise, file: file, line: line) else { return nil }
        switch outcome {
        case .success(let v): return v
        case .failure(let e):
            XCTFail("rejected with \(e)", file: file, line: line)
            return nil
        }
    }

    func error<T>(_ promise: Promise<T>, file: StaticString = #filePath, line: UInt = #line) -> (any Error)? {
        guard let outcome = settle(promise, file: file, line: line) else { return nil }
        if case .failure(let e) = outcome { return e }
        XCTFail("fulfilled, expected a rejection", file: file, line: line)
        return nil
    }

    /// Lets `queue` run everything already submitted to it.
    func drain(_ q: DispatchQueue? = nil) {
        (q ?? queue).sync {}
    }
}
