/// A node holding the latest values of `a` and `b` together, once both hold one, and updated
/// when either changes (EasyReact's `EZRCombine`). In one set that changes both (a diamond), it
/// updates once, after both: a listener never sees a new `a` beside an old `b`.
///
/// ```swift
/// let a = MutableNode(1), b = MutableNode(2)
/// let sum = combine(a, b).mapEach { $0 + $1 }   // 3
/// a.value = 4                                   // sum 6
/// ```
public func combine<A, B>(_ a: Node<A>, _ b: Node<B>) -> Node<(A, B)> {
    // Unowned: the closure is kept by the inputs' edges; the combined node keeps the inputs.
    combined(inputs: [a, b]) { [unowned a, unowned b] in
        guard case .value(let va) = a.slot, case .value(let vb) = b.slot else { return nil }
        return (va, vb)
    }
}

/// `combine` of three nodes.
///
/// ```swift
/// let all = combine(a, b, c).mapEach { $0 + $1 + $2 }
/// ```
public func combine<A, B, C>(_ a: Node<A>, _ b: Node<B>, _ c: Node<C>) -> Node<(A, B, C)> {
    combined(inputs: [a, b, c]) { [unowned a, unowned b, unowned c] in
        guard case .value(let va) = a.slot, case .value(let vb) = b.slot, case .value(let vc) = c.slot else { return nil }
        return (va, vb, vc)
    }
}

/// `combine` of four nodes.
///
/// ```swift
/// let all = combine(a, b, c, d).mapEach { $0 + $1 + $2 + $3 }
/// ```
public func combine<A, B, C, D>(_ a: Node<A>, _ b: Node<B>, _ c: Node<C>, _ d: Node<D>) -> Node<(A, B, C, D)> {
    combined(inputs: [a, b, c, d]) { [unowned a, unowned b, unowned c, unowned d] in
        guard case .value(let va) = a.slot, case .value(let vb) = b.slot, case .value(let vc) = c.slot,
              case .value(let vd) = d.slot
        else { return nil }
        return (va, vb, vc, vd)
    }
}

/// A node fed by every node of `inputs`, whose value `compute` builds from their current
/// values (nil: not yet). Computed once at the start, then once per wave that changes an input.
func combined<Value>(inputs: [any AnyNodeFeeding], _ compute: @escaping @Sendable () -> Value?) -> Node<Value> {
    let node = Node<Value>(slot: .empty)
    // Made once: deferring it in a wave then costs no allocation. Unowned: the inputs' edges
    // keep this closure, and the node removes those edges when it goes.
    let recompute: @Sendable () -> Void = { [unowned node] in
        if let value = compute() { node.receive(value) }
    }
    GraphEngine.shared.lock.withLock {
        for input in inputs {
            input.feedSignal(into: node) { node in node.inputChanged(recompute) }
        }
        recompute()
    }
    return node
}

/// A node that can feed another one with a signal, whatever its value type (combine, merge).
protocol AnyNodeFeeding: AnyObject {
    func feedSignal<Down: Sendable>(into downstream: Node<Down>, _ signal: @escaping @Sendable (Node<Down>) -> Void)
}

extension Node: AnyNodeFeeding {
    func feedSignal<Down: Sendable>(into downstream: Node<Down>, _ signal: @escaping @Sendable (Node<Down>) -> Void) {
        downstream.feed(from: self, deliveringCurrent: false) { _, downstream in signal(downstream) }
    }
}

extension Node {
    /// Maps a node of pairs with a two-argument function: `combine(a, b).mapEach { $0 + $1 }`.
    ///
    /// ```swift
    /// let sum = combine(a, b).mapEach { x, y in x + y }
    /// ```
    public func mapEach<A, B, Result: Sendable>(_ transform: @escaping @Sendable (A, B) -> Result) -> Node<Result>
    where Value == (A, B) {
        map { transform($0.0, $0.1) }
    }

    /// Maps a node of triples with a three-argument function.
    ///
    /// ```swift
    /// let sum = combine(a, b, c).mapEach { $0 + $1 + $2 }
    /// ```
    public func mapEach<A, B, C, Result: Sendable>(_ transform: @escaping @Sendable (A, B, C) -> Result) -> Node<Result>
    where Value == (A, B, C) {
        map { transform($0.0, $0.1, $0.2) }
    }

    /// Maps a node of quadruples with a four-argument function.
    ///
    /// ```swift
    /// let sum = combine(a, b, c, d).mapEach { $0 + $1 + $2 + $3 }
    /// ```
    public func mapEach<A, B, C, D, Result: Sendable>(_ transform: @escaping @Sendable (A, B, C, D) -> Result)
        -> Node<Result> where Value == (A, B, C, D)
    {
        map { transform($0.0, $0.1, $0.2, $0.3) }
    }
}
