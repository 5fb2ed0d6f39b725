import CRJContext

/// `for x in generator`: a generator with `Input == Void` is a single-pass `Sequence`.
///
/// A Swift for-in loop cannot rethrow, so when the generator's body throws during iteration:
/// - inside another generator's body (a pipeline stage, an `rj_async` body, an async
///   generator's body), the loop ends and the error is kept for that body: its next `yield`
///   throws it, and if it ends first, it ends by throwing it (its return value is dropped). So
///   the error reaches the consumer of the pipeline, every `defer` on the way runs, and the
///   stage cannot complete as if its input had ended normally;
/// - anywhere else (top-level code, a plain function), there is nobody to give it to: the
///   program stops with a message naming the error and the idioms that throw.
///
/// Where the generator may throw, iterate with `while let x = try g.nextValue()`,
/// ``Generator/forEach(_:)`` or ``Generator/collect()``, which throw at once
/// (docs/generators.md, "for-in and errors").
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
/// return one from `makeIterator()`. Its `next() -> Element?` is for code that takes any iterator:
/// `try g.next()` still means the throwing `next()` that returns a
/// `GeneratorStep` (this one is disfavoured), and a body that throws is handled as in a for-in
/// (the `Sequence` conformance above says how).
///
/// ```swift
/// struct Countdown: Sequence {
///     let from: Int
///     func makeIterator() -> RJIterator.Generator<Int, Void, Void> {
///         RJIterator.Generator { y in for i in stride(from: from, through: 1, by: -1) { try y.yield(i) } }
///     }
/// }
/// Array(Countdown(from: 3))   // [3, 2, 1]
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
            forInFailed(error, iterating: "a generator")
            return nil
        }
    }
}

/// A for-in over a generator (or a tee reader) whose body threw: inside a generator's body, the
/// error is kept for that body's next `yield` or its end, and the loop ends; elsewhere the
/// program stops with a message (`Generator`'s `Sequence` conformance says why).
@usableFromInline @inline(never)
func forInFailed(_ error: any Error, iterating what: String) {
    if let current = rj_coro_current(), let owner = rj_coro_owner(current) {
        Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef { $0.machine.deferError(error) }
        return
    }
    fatalError(
        "RJIterator: \(what) threw \(error) during a for-in outside any generator body, where for-in cannot "
            + "rethrow it. Iterate with `while let x = try g.nextValue()`, `try g.forEach { ... }` or "
            + "`try g.collect()` to handle the error (docs/generators.md, \"for-in and errors\")")
}

extension Generator where Input == Void {
    /// Runs `body` on every value the generator yields, until the generator returns; the
    /// throwing counterpart of `for x in generator`. An error of the generator's body, or of
    /// `body`, is thrown out; when `body` throws, the generator is left suspended where it was.
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
