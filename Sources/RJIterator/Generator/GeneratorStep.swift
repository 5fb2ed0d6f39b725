/// What one call to ``Generator/next(_:)``, ``Generator/return(_:)`` or ``Generator/throw(_:)``
/// produced: a yielded value (the body is suspended) or the body's return value (it is done).
///
/// ```swift
/// switch try gen.next() {
/// case .yielded(let x): print("got", x)
/// case .returned(let r): print("done with", r)
/// }
/// ```
public enum GeneratorStep<Element, Return> {
    /// The body called `yield(value)` and is suspended there.
    case yielded(Element)
    /// The body returned this value; the generator is completed.
    case returned(Return)

    /// The yielded value, or `nil` once the generator has returned.
    public var yieldedValue: Element? {
        if case .yielded(let value) = self { return value }
        return nil
    }

    /// The return value, or `nil` while the generator is still yielding.
    public var returnedValue: Return? {
        if case .returned(let value) = self { return value }
        return nil
    }
}

extension GeneratorStep: Equatable where Element: Equatable, Return: Equatable {}
extension GeneratorStep: Sendable where Element: Sendable, Return: Sendable {}
