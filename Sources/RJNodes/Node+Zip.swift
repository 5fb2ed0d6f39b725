extension Node {
    /// A node of pairs: the first values of this node and `other` together, then their second
    /// values, and so on (EasyReact's zip). Values wait until the other side has one to pair
    /// with; the values the nodes hold now are the first.
    ///
    /// ```swift
    /// let a = MutableNode(1), b = MutableNode(2)
    /// let pairs = a.zip(b)   // (1, 2)
    /// a.value = 3; a.value = 4; b.value = 5   // (3, 5)
    /// ```
    public func zip<Other>(_ other: Node<Other>) -> Node<(Value, Other)> {
        let queues = ZipQueues2<Value, Other>()
        return zipped(inputs: [self, other], queues: queues)
    }

    /// Zips three nodes.
    ///
    /// ```swift
    /// let triples = a.zip(b, c)
    /// ```
    public func zip<B, C>(_ b: Node<B>, _ c: Node<C>) -> Node<(Value, B, C)> {
        zipped(inputs: [self, b, c], queues: ZipQueues3<Value, B, C>())
    }

    /// Zips four nodes.
    ///
    /// ```swift
    /// let quadruples = a.zip(b, c, d)
    /// ```
    public func zip<B, C, D>(_ b: Node<B>, _ c: Node<C>, _ d: Node<D>) -> Node<(Value, B, C, D)> {
        zipped(inputs: [self, b, c, d], queues: ZipQueues4<Value, B, C, D>())
    }
}

/// The waiting values of a zip, one queue per input. Guarded by the engine's lock.
protocol ZipQueues: AnyObject, Sendable {
    associatedtype Tuple: Sendable
    /// Appends the value of input `index` (type-erased: each queue knows its type).
    func append(_ value: Any, at index: Int)
    /// The next tuple, if every queue has a value.
    func next() -> Tuple?
}

/// A first-in first-out queue of one zip input's values. `Array.removeFirst` moves every
/// remaining value, which made a zip of a fast input and a slow one quadratic in the backlog:
/// values are taken from a moving head instead, and the array compacted once half of it is
/// taken. A taken value's slot is emptied at once, so the queue does not keep it alive.
struct ZipFIFO<T> {
    private var items: [T?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ value: T) { items.append(value) }

    /// The oldest value; the queue must not be empty.
    mutating func removeFirst() -> T {
        let value = items[head].take().unsafelyUnwrapped
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return value
    }
}

final class ZipQueues2<A, B>: ZipQueues, @unchecked Sendable {
    @exclusivity(unchecked) var a = ZipFIFO<A>()
    @exclusivity(unchecked) var b = ZipFIFO<B>()
    func append(_ value: Any, at index: Int) {
        if index == 0 { a.append(value as! A) } else { b.append(value as! B) }
    }
    func next() -> (A, B)? {
        guard !a.isEmpty, !b.isEmpty else { return nil }
        return (a.removeFirst(), b.removeFirst())
    }
}

final class ZipQueues3<A, B, C>: ZipQueues, @unchecked Sendable {
    @exclusivity(unchecked) var a = ZipFIFO<A>()
    @exclusivity(unchecked) var b = ZipFIFO<B>()
    @exclusivity(unchecked) var c = ZipFIFO<C>()
    func append(_ value: Any, at index: Int) {
        switch index {
        case 0: a.append(value as! A)
        case 1: b.append(value as! B)
        default: c.append(value as! C)
        }
    }
    func next() -> (A, B, C)? {
        guard !a.isEmpty, !b.isEmpty, !c.isEmpty else { return nil }
        return (a.removeFirst(), b.removeFirst(), c.removeFirst())
    }
}

final class ZipQueues4<A, B, C, D>: ZipQueues, @unchecked Sendable {
    @exclusivity(unchecked) var a = ZipFIFO<A>()
    @exclusivity(unchecked) var b = ZipFIFO<B>()
    @exclusivity(unchecked) var c = ZipFIFO<C>()
    @exclusivity(unchecked) var d = ZipFIFO<D>()
    func append(_ value: Any, at index: Int) {
        switch index {
        case 0: a.append(value as! A)
        case 1: b.append(value as! B)
        case 2: c.append(value as! C)
        default: d.append(value as! D)
        }
    }
    func next() -> (A, B, C, D)? {
        guard !a.isEmpty, !b.isEmpty, !c.isEmpty, !d.isEmpty else { return nil }
        return (a.removeFirst(), b.removeFirst(), c.removeFirst(), d.removeFirst())
    }
}

/// A zip of `inputs` through `queues`: each value of input i joins queue i; a wave that
/// completes a tuple delivers it (one tuple per wave; a further complete tuple waits for the
/// next value).
func zipped<Queues: ZipQueues>(inputs: [any AnyNodeZipping], queues: Queues) -> Node<Queues.Tuple> {
    let node = Node<Queues.Tuple>(slot: .empty)
    // Made once (no allocation per wave); unowned as in `combined`.
    let deliver: @Sendable () -> Void = { [unowned node] in
        if let tuple = queues.next() { node.receive(tuple) }
    }
    GraphEngine.shared.lock.withLock {
        for (index, input) in inputs.enumerated() {
            input.appendCurrent(to: queues, at: index)
            input.feedValues(into: node) { value, node in
                queues.append(value, at: index)
                node.inputChanged(deliver)
            }
        }
        if let tuple = queues.next() { node.receive(tuple) }
    }
    return node
}

/// A node that can feed a zip, whatever its value type.
protocol AnyNodeZipping: AnyObject {
    func appendCurrent<Queues: ZipQueues>(to queues: Queues, at index: Int)
    func feedValues<Down: Sendable>(into downstream: Node<Down>, _ deliver: @escaping @Sendable (Any, Node<Down>) -> Void)
}

extension Node: AnyNodeZipping {
    func appendCurrent<Queues: ZipQueues>(to queues: Queues, at index: Int) {
        if case .value(let v) = slot { queues.append(v, at: index) }
    }

    func feedValues<Down: Sendable>(into downstream: Node<Down>, _ deliver: @escaping @Sendable (Any, Node<Down>) -> Void) {
        downstream.feed(from: self, deliveringCurrent: false) { value, downstream in deliver(value, downstream) }
    }
}
