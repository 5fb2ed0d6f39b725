import RJLocks

extension Node {
    /// Splits the values by a key: `nodes.case(key)` is a node of the values whose key is `key`,
    /// `nodes.default` one of the values whose key is `nil` or has no case (EasyReact's
    /// switch-case-default).
    ///
    /// ```swift
    /// let nodes = lines.switch { line in line.split(separator: ":").count > 1 ? String(line.prefix { $0 != ":" }) : nil }
    /// let liLei = nodes.case("Li Lei")
    /// let narration = nodes.default
    /// ```
    public func `switch`<Key: Hashable & Sendable>(_ key: @escaping @Sendable (Value) -> Key?) -> SwitchedNodes<Key, Value> {
        SwitchedNodes(map { (key($0), $0) })
    }

    /// `switch` that also maps each value: `keyAndValue` gives the key and what the case (or
    /// default) node receives.
    ///
    /// ```swift
    /// let nodes = lines.switchMap { line -> (String?, String) in (speaker(line), words(line)) }
    /// ```
    public func switchMap<Key: Hashable & Sendable, Mapped: Sendable>(
        _ keyAndValue: @escaping @Sendable (Value) -> (Key?, Mapped)
    ) -> SwitchedNodes<Key, Mapped> {
        SwitchedNodes(map(keyAndValue))
    }
}

/// The branches of ``Node/switch(_:)`` and ``Node/switchMap(_:)``.
///
/// ```swift
/// let said = nodes.case("Han Meimei")
/// let aside = nodes.default
/// ```
public final class SwitchedNodes<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    let keyed: Node<(Key?, Value)>
    /// The keys that have a case node: the default node takes the others.
    let cases = RJLockedValue(Set<Key>())

    init(_ keyed: Node<(Key?, Value)>) {
        self.keyed = keyed
    }

    /// The node of the values whose key is `key`.
    ///
    /// ```swift
    /// nodes.case("Li Lei").listenedBy(self).withBlock { print("Li Lei: \($0)") }
    /// ```
    public func `case`(_ key: Key) -> Node<Value> {
        cases.withLockedValue { _ = $0.insert(key) }
        return keyed.derive { pair, downstream in
            if pair.0 == key { downstream.receive(pair.1) }
        }
    }

    /// The node of the values whose key is `nil` or has no case.
    ///
    /// ```swift
    /// nodes.default.listenedBy(self).withBlock { print("aside: \($0)") }
    /// ```
    public var `default`: Node<Value> {
        let cases = self.cases
        return keyed.derive { pair, downstream in
            if let key = pair.0, cases.withLockedValue({ $0.contains(key) }) { return }
            downstream.receive(pair.1)
        }
    }
}

extension Node {
    /// Splits the values in two by `predicate` (EasyReact's if-then-else): the result's
    /// `thenNode` takes the values for which it is true, `elseNode` the others; `then` and
    /// `else` hand each node to a block, and chain.
    ///
    /// ```swift
    /// node.if { $0 > 0 }
    ///     .then { $0.listenedBy(self).withBlock { print("Eligible: \($0)") } }
    ///     .else { $0.listenedBy(self).withBlock { print("Not Eligible: \($0)") } }
    /// ```
    public func `if`(_ predicate: @escaping @Sendable (Value) -> Bool) -> IfResult<Value> {
        IfResult(thenNode: filter(predicate), elseNode: filter { !predicate($0) })
    }
}

/// The two branches of ``Node/if(_:)``.
///
/// ```swift
/// let positive = node.if { $0 > 0 }.thenNode
/// ```
public struct IfResult<Value: Sendable>: Sendable {
    /// The values for which the predicate is true.
    public let thenNode: Node<Value>
    /// The values for which it is false.
    public let elseNode: Node<Value>

    /// Hands ``thenNode`` to `body`; returns the result again, to chain `.else`.
    ///
    /// ```swift
    /// node.if { $0 > 0 }.then { positive in use(positive) }
    /// ```
    @discardableResult
    public func then(_ body: (Node<Value>) -> Void) -> IfResult<Value> {
        body(thenNode)
        return self
    }

    /// Hands ``elseNode`` to `body`; returns the result again.
    ///
    /// ```swift
    /// node.if { $0 > 0 }.else { other in use(other) }
    /// ```
    @discardableResult
    public func `else`(_ body: (Node<Value>) -> Void) -> IfResult<Value> {
        body(elseNode)
        return self
    }
}
