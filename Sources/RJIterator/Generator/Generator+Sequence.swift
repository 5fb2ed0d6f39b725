import CRJContext
import RJLocks

/// `for x in generator`: a generator with `Input == Void` is a single-pass `Sequence`.
///
/// A Swift for-in cannot rethrow: a body's error goes to the running generator body, if any,
/// else the program stops. Where the generator may throw, use `try g.nextValue()`,
/// ``Generator/forEach(_:)`` or ``Generator/collect()`` (docs/generators.md, "for-in and errors").
///
/// ```swift
/// let squares = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i * i) } }
/// for s in squares { print(s) }      // 1 4 9
/// ```
extension Generator: Sequence where Input == Void {
    /// A generator is its own iterator too (below), but for-in keeps this one, which holds it.
    public typealias Iterator = GeneratorIterator<Element, Return>

    @inlinable
    public func makeIterator() -> GeneratorIterator<Element, Return> {
        GeneratorIterator(generator: self)
    }
}

/// A generator with `Input == Void` is an `IteratorProtocol` too, so that a `Sequence` type can
/// return one from `makeIterator()`. Its `next() -> Element?` is disfavoured: `try g.next()`
/// still means the throwing `next()`; a body that throws is handled as in a for-in.
///
/// ```swift
/// // in a `Sequence` type (the whole example is `RJIterator.Generator`'s):
/// func makeIterator() -> RJIterator.Generator<Int, Void, Void> { .init { y in try y.yield(1) } }
/// ```
extension Generator: IteratorProtocol where Input == Void {
    @inlinable @_disfavoredOverload
    public func next() -> Element? {
        var iterator = GeneratorIterator(generator: self)
        return iterator.next()
    }
}

/// The iterator of a `Generator` with `Input == Void`; iterating it advances the generator.
///
/// ```swift
/// var it = Generator<Int, Void, Void> { y in try y.yield(7) }.makeIterator()
/// it.next()   // 7
/// it.next()   // nil
/// ```
public struct GeneratorIterator<Element, Return>: IteratorProtocol {
    @usableFromInline let generator: Generator<Element, Void, Return>

    @usableFromInline init(generator: Generator<Element, Void, Return>) {
        self.generator = generator
    }

    @inlinable
    public mutating func next() -> Element? {
        do {
            switch try generator.next() {
            case .yielded(let value): return value
            case .returned: return nil
            }
        } catch {
            forInFailed(error, reading: generator.record.site, generator: Unmanaged.passUnretained(generator).toOpaque(), throughTee: false)
            return nil
        }
    }
}

/// A for-in over a generator (or a tee reader) whose body threw: the error goes to the running
/// generator body, if any; elsewhere the program stops (`Generator`'s `Sequence` conformance).
/// `site`: where the generator read was made; `generator`: that generator (nil through a tee).
@usableFromInline @inline(never)
func forInFailed(_ error: any Error, reading site: UInt64, generator: UnsafeMutableRawPointer?, throughTee: Bool) {
    if let current = rj_coro_current(), let owner = rj_coro_owner(current) {
        // Kept on the coroutine host: the runner, for a body adopted on its stack (Adoption.swift).
        Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { body in
            let left = ForInInBody(body: body.record.site, bodyGenerator: UInt(bitPattern: owner), read: site,
                                   readGenerator: UInt(bitPattern: generator), error: describe(error))
            ForInInBody.last.withLock { $0 = left }
            let host = body.adoption?.pointee.runner ?? Unmanaged.passUnretained(body)
            host._withUnsafeGuaranteedRef { $0.machine.deferError(error) }
        }
        return
    }
    let read = "the Generator made at \(CoroutineRecord.text(of: site))" + (throughTee ? ", through a tee reader" : "")
    var origin = ""
    // The same error, left by a for-in inside that generator's body: say which loop is where.
    // Matched by the generators where known (a recursive generator's levels share one line).
    if let inner = ForInInBody.last.withLock({ $0 }), inner.body == site, inner.error == describe(error),
       generator == nil || inner.bodyGenerator == UInt(bitPattern: generator) {
        if inner.readGenerator != 0, inner.readGenerator == inner.bodyGenerator {
            fatalError(
                "RJIterator: the body of \(read) read its own generator with a for-in: a running generator cannot be "
                    + "read (GeneratorError.alreadyRunning), so that loop ended at once, the body ended by throwing the "
                    + "error, and the for-in outside any body that read it cannot rethrow it. Do not read a generator "
                    + "from its own body: yield the values there, or read another generator")
        }
        origin = " It comes from a for-in inside that generator's body, which read the Generator made at "
            + CoroutineRecord.text(of: inner.read) + ": that loop ended there, and the body ended by throwing the error."
    }
    fatalError(
        "RJIterator: a for-in outside any generator body read \(read), whose body threw \(describe(error)); "
            + "for-in cannot rethrow it.\(origin) Read it with `while let x = try g.nextValue()`, `try g.forEach { ... }` "
            + "or `try g.collect()` to handle the error (docs/generators.md, \"for-in and errors\")")
}

/// An error as a message quotes it: the library's own by name, without a second `RJIterator:`.
func describe(_ error: any Error) -> String {
    guard let error = error as? GeneratorError else { return "\(error)" }
    let text = error.description
    return "GeneratorError.\(error.name)" + (text.hasPrefix("RJIterator: ") ? " (\(text.dropFirst(12)))" : "")
}

/// The last error a for-in inside a generator's body left to that body (`forInFailed`): what the
/// message of a for-in outside any body quotes when that body then threw the same error.
struct ForInInBody: Sendable {
    let body: UInt64, bodyGenerator: UInt, read: UInt64, readGenerator: UInt, error: String
    static let last = RJMutex<ForInInBody?>(nil)
}

extension Generator where Input == Void {
    /// Runs `body` on every value the generator yields until it returns (a throwing `for x in
    /// generator`); errors are thrown out, and when `body` throws the generator stays suspended.
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in try y.yield(1); try y.yield(2) }
    /// try g.forEach { print($0) }   // 1 2
    /// ```
    ///
    /// - Returns: the generator's return value.
    @inlinable @discardableResult
    public func forEach(_ body: (Element) throws -> Void) throws -> Return {
        while true {
            switch try perform(.next(())) {
            case .yielded(let value): try body(value)
            case .returned(let result): return result
            }
        }
    }

    /// Every value the generator yields until it returns, in order; an error of its body is
    /// thrown out (the values before it are dropped).
    ///
    /// ```swift
    /// let g = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
    /// try g.collect()   // [1, 2, 3]
    /// ```
    @inlinable
    public func collect() throws -> [Element] {
        var values: [Element] = []
        try forEach { values.append($0) }
        return values
    }
}
