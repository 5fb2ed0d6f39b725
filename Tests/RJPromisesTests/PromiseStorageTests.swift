import Dispatch
import XCTest

@testable import RJPromises

/// A promise keeps a small trivial value in its own bytes and anything else in a box: every
/// kind of value must come back intact through both, and a boxed value must be released
/// exactly when the promise goes.
final class PromiseStorageTests: PromiseTestCase {
    private struct SixteenBytes: Equatable, Sendable { var a: Int64 = 1, b: Int64 = 2 }
    private struct SeventeenBytes: Equatable, Sendable { var a: Int64 = 3, b: Int64 = 4, c: UInt8 = 5 }
    private struct Empty: Equatable, Sendable {}
    private final class Object: Sendable {}

    func testWhichValuesAreKeptInline() {
        XCTAssertTrue(Promise<Int>.keepsValueInline)
        XCTAssertTrue(Promise<Double>.keepsValueInline)
        XCTAssertTrue(Promise<Void>.keepsValueInline)
        XCTAssertTrue(Promise<Empty>.keepsValueInline)
        XCTAssertTrue(Promise<SixteenBytes>.keepsValueInline)
        XCTAssertFalse(Promise<SeventeenBytes>.keepsValueInline, "larger than the 16 inline bytes")
        XCTAssertFalse(Promise<SIMD4<Float>>.keepsValueInline, "aligned to 16, more than the inline bytes' 8")
        XCTAssertFalse(Promise<String>.keepsValueInline, "not trivial: holds a reference")
        XCTAssertFalse(Promise<Object>.keepsValueInline, "a reference")
    }

    func testEveryKindOfValueComesBackIntact() {
        func roundTrip<T: Sendable & Equatable>(_ value: T) {
            XCTAssertEqual(Promise(value).fulfilledValue, value, "settled at creation: \(T.self)")
            let pending = Promise<T>.pending()
            pending.fulfill(value)
            XCTAssertEqual(pending.fulfilledValue, value, "settled later: \(T.self)")
            XCTAssertEqual(try settle(pending.then(on: queue) { $0 })?.get(), value, "through then: \(T.self)")
        }
        roundTrip(Int.min)
        roundTrip(-0.0 as Double)
        roundTrip(Empty())
        roundTrip(SixteenBytes(a: .max, b: .min))
        roundTrip(SeventeenBytes(a: 7, b: 8, c: 9))
        roundTrip(SIMD4<Float>(1, 2, 3, 4))
        roundTrip(String(repeating: "long enough to live on the heap ", count: 4))
        roundTrip([1, 2, 3])
        XCTAssertNotNil(Promise<Void>(()).fulfilledValue)
    }

    func testABoxedValueIsReleasedWithTheLastPromiseHoldingIt() {
        weak var watched: Object?
        do {
            let object = Object()
            watched = object
            let promise = Promise<Object>.pending()
            promise.fulfill(object)
            XCTAssertTrue(promise.fulfilledValue === object)
        }
        XCTAssertNil(watched)
        do {
            let promise = Promise([Object()])
            watched = promise.fulfilledValue?.first
            XCTAssertNotNil(watched)
        }
        XCTAssertNil(watched)
    }

    func testARejectedPromiseKeepsItsErrorAndNoValue() {
        let promise = Promise<SixteenBytes>.pending()
        promise.reject(TestError(code: 7))
        XCTAssertNil(promise.fulfilledValue)
        XCTAssertEqual(promise.error as? TestError, TestError(code: 7))
        promise.fulfill(SixteenBytes())
        XCTAssertTrue(promise.isRejected, "settles once")
    }
}
