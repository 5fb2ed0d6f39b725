/// `for x in generator`: a generator with `Input == Void` is a single-pass `Sequence`.
///
/// A for-in loop cannot rethrow, and an error of the body is never dropped silently: if the
/// body throws during iteration, the program stops with a message naming the error. To handle
/// the body's errors, consume the generator with ``Generator/forEach(_:)`` or
/// ``Generator/collect()``, which rethrow them.
///
/// ```swift
/// let squares = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i * i) } }
/// for s in squares { print(s) }      // 1 4 9
/// ```
extension Generator: Sequence where Input == Void {
    @inlinable
    public func makeIterator() -> GeneratorIterator<Element, Return> {
        GeneratorIterator(generator: self)
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
            fatalError(
                "RJIterator: the generator threw \(error) during for-in, which cannot rethrow it. "
                    + "Consume it with `try generator.forEach { ... }` or `try generator.collect()` "
                    + "to handle errors")
        }
    }
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
