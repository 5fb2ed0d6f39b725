/// `for x in generator`: a generator with `Input == Void` is a single-pass `Sequence`.
///
/// A for-in loop cannot rethrow, and an error of the body is never dropped silently: if the
/// body throws during iteration, the program stops with a message naming the error. Iterate
/// with `try next()` to handle errors instead.
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
                    + "Iterate with `while case .yielded(let x) = try generator.next()` to handle errors")
        }
    }
}
