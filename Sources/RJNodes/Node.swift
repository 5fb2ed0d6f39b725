import Dispatch
import RJLocks

/// A reactive value, EasyReact's node: empty, or holding a value that changes over time and
/// is pushed to the nodes derived from it (`map`, `filter`, ... one transform per file,
/// `Node+Map.swift`...) and to listeners (`listenedBy(_:).withBlock(_:)`).
///
/// ```swift
/// let a = MutableNode(1)
/// let b = a.map { "\($0)" }     // b.value == "1" at once: a's value passes through
/// a.value = 2                   // b.value == "2"
/// ```
///
/// - Empty is distinct from `nil`: a `MutableNode<Int?>` can hold `nil`; ``isEmpty`` tells the
///   two apart. Empty values are never delivered, and a derived node keeps its last value.
/// - Values propagate synchronously, on the thread that set them, to derived nodes and
///   listeners in the order they were added, unless a transform says otherwise
///   (`deliverOn`, `delay`, `throttle`).
/// - Threads: every member is thread-safe. A node delivers one value at a time: a set from
///   another thread waits until the current delivery is over; a set made by a listener of this
///   node, during the delivery, is queued and delivered right after it, so every listener sees
///   the values in the order they were set.
/// - Ownership: a derived node keeps its source alive; a source does not keep its derived
///   nodes alive. Listeners keep the node they listen to alive for as long as their owner
///   lives (see `Node+Listen.swift`).
public class Node<Value: Sendable>: @unchecked Sendable {
    @usableFromInline
    enum Slot {
        case empty
        case value(Value)
    }

    /// A class, not a struct: a wave copies the edge list and walks it, and copying a struct
    /// with closures and a node reference retained each of them, on every delivery.
    @usableFromInline
    final class Edge: @unchecked Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let deliver: @Sendable (Value) -> Void
        /// The node this edge feeds, for graph traversal (nil for a listener).
        @usableFromInline let target: AnyNodeReference?

        @inlinable init(id: UInt64, target: AnyNodeReference?, deliver: @escaping @Sendable (Value) -> Void) {
            self.id = id
            self.target = target
            self.deliver = deliver
        }
    }

    /// The process-wide engine, held here so that the hot path reads a field instead of a lazy
    /// global (whose once-check showed in profiles).
    @usableFromInline final let engine = GraphEngine.shared
    // Guarded by the engine's lock (GraphEngine.swift), which every node operation takes.
    // (`@exclusivity(unchecked)`: the lock already makes the accesses exclusive, and the dynamic
    // check cost more than a listener call.)
    // `final`: code inlined into another module then reaches the fields directly, not through
    // generic accessors that look the field's type metadata up on every call.
    @usableFromInline @exclusivity(unchecked) final var slot: Slot
    @usableFromInline @exclusivity(unchecked) final var edges: [Edge] = []
    @usableFromInline @exclusivity(unchecked) final var nextEdgeID: UInt64 = 0
    /// The wave in which this node last took a value: at most once per wave.
    @usableFromInline @exclusivity(unchecked) final var lastWave: UInt64 = 0
    /// One more than the highest rank upstream; orders the deferred nodes of a wave.
    @usableFromInline @exclusivity(unchecked) final var rank = 0
    @usableFromInline @exclusivity(unchecked) final var storedName: String?
    /// The edges feeding this node: each holds its upstream node (keeping it alive) and
    /// removes the upstream's edge when it goes.
    @usableFromInline @exclusivity(unchecked) final var upstreamLinks: [UpstreamLink] = []
    /// For a node linked to several upstreams: the value the last of them gave in this wave.
    @usableFromInline @exclusivity(unchecked) final var linkedValue: Value?

    @usableFromInline
    init(slot: Slot) {
        self.slot = slot
    }

    deinit {
        // Detach from every upstream; the links hold the upstream nodes until then.
        let links = upstreamLinks
        upstreamLinks = []
        for link in links { link.detach() }
    }

    /// The current value, or `nil` while the node is empty. (For a node of an optional type,
    /// `.some(nil)` is a held `nil`; see ``isEmpty``.)
    ///
    /// ```swift
    /// MutableNode(3).value       // Optional(3)
    /// MutableNode<Int>().value   // nil
    /// ```
    public var value: Value? {
        engine.lock.withLock {
            if case .value(let v) = slot { return v }
            return nil
        }
    }

    /// Whether the node holds no value (distinct from holding `nil`).
    ///
    /// ```swift
    /// let n = MutableNode<Int?>(nil)
    /// n.isEmpty   // false: it holds nil
    /// ```
    public var isEmpty: Bool {
        engine.lock.withLock {
            if case .empty = slot { return true }
            return false
        }
    }

    // MARK: Propagation

    /// Takes `value` and delivers it to every edge, in the order they were added. Called by
    /// the transforms feeding this node, where it joins the running wave, and by
    /// `MutableNode`'s setters (`isSet`): a set made while a wave runs (from a listener, or from
    /// the closure of a transform) starts a wave of its own after it; elsewhere a set starts a
    /// wave at once (GraphEngine.swift).
    @inlinable
    final func receive(_ value: Value, context: ValueContext? = nil, isSet: Bool = false) {
        let engine = self.engine
        engine.lock.withLock {
            if engine.inWave {
                if !isSet {
                    take(value)
                } else {
                    engine.queuedWaves.append { [self] in
                        engine.context = context
                        take(value)
                    }
                }
                return
            }
            engine.inWave = true
            engine.wave &+= 1
            engine.context = context
            take(value)
            engine.finishWave()
        }
    }

    /// Inside a wave: holds `value` and delivers it, unless this node took a value in this
    /// wave already (a value goes once around a cycle).
    @inlinable
    final func take(_ value: Value) {
        let wave = engine.wave
        if lastWave == wave { return }
        lastWave = wave
        slot = .value(value)
        let current = edges
        for index in current.indices { current[index].deliver(value) }
    }

    /// Makes the node empty; nothing is delivered.
    @usableFromInline
    final func makeEmpty() {
        engine.lock.withLock { slot = .empty }
    }

    /// Adds an edge and, if the node holds a value, delivers it to that edge at once (under
    /// the lock, so no value is missed or seen twice in between). Returns the edge's id.
    @usableFromInline
    final func addEdge(
        target: AnyNodeReference? = nil, deliveringCurrent: Bool = true, _ deliver: @escaping @Sendable (Value) -> Void
    ) -> UInt64 {
        engine.lock.withLock {
            nextEdgeID += 1
            let id = nextEdgeID
            edges.append(Edge(id: id, target: target, deliver: deliver))
            if deliveringCurrent, case .value(let v) = slot { deliver(v) }
            return id
        }
    }

    @usableFromInline
    final func removeEdge(_ id: UInt64) {
        engine.lock.withLock { edges.removeAll { $0.id == id } }
    }

    /// Makes a node fed by this one: `transform` turns each value of this node into calls to
    /// the new node's `receive` (or none). The new node keeps this one alive; this one keeps
    /// the new one only weakly.
    @inlinable
    final func derive<Down: Sendable>(
        _ transform: @escaping @Sendable (_ value: Value, _ downstream: Node<Down>) -> Void
    ) -> Node<Down> {
        let downstream = Node<Down>(slot: .empty)
        downstream.feed(from: self, transform)
        return downstream
    }
}

extension Node {
    /// Adds an edge from `upstream` into this node: `transform` turns each of its values into
    /// calls to this node's `receive`. This node keeps `upstream` alive (until the edge is
    /// removed); `upstream` keeps this node only weakly. Returns the link.
    @usableFromInline @discardableResult
    final func feed<Up: Sendable>(
        from upstream: Node<Up>, deliveringCurrent: Bool = true,
        _ transform: @escaping @Sendable (_ value: Up, _ downstream: Node<Value>) -> Void
    ) -> UpstreamLink {
        engine.lock.withLock {
            raiseRank(above: upstream.rank)
            let target = UnownedCheck(self)
            let link = UpstreamLink(upstream: upstream)
            upstreamLinks.append(link)
            let id = upstream.addEdge(target: AnyNodeReference(self), deliveringCurrent: deliveringCurrent) { value in
                if let downstream = target.load() { transform(value, downstream) }
            }
            link.edgeID = id
            return link
        }
    }

    /// For a node with several inputs: `recompute` runs once per wave, after every input that
    /// changes in the wave has (see GraphEngine.swift); outside a wave, at once.
    @usableFromInline
    final func inputChanged(_ recompute: @escaping @Sendable () -> Void) {
        let engine = GraphEngine.shared
        if engine.inWave {
            engine.deferUpdate(of: self, rank: rank, recompute)
        } else {
            recompute()
        }
    }

    /// Keeps `rank` above `rank` of an upstream, and its downstream nodes above it in turn
    /// (a cycle stops the walk: a node already raised in it is left alone).
    @usableFromInline
    final func raiseRank(above upstreamRank: Int) {
        var seen: Set<ObjectIdentifier> = []
        var work: [(AnyNodeReference, Int)] = [(AnyNodeReference(self), upstreamRank + 1)]
        while let (node, minimum) = work.popLast() {
            guard let object = node.object, seen.insert(ObjectIdentifier(object)).inserted else { continue }
            if node.rank >= minimum { continue }
            node.setRank(minimum)
            for next in node.downstreamReferences { work.append((next, minimum + 1)) }
        }
    }
}

/// An edge into a node, seen from the node it feeds: holds the upstream node (keeping it
/// alive) and removes the upstream's edge when the link goes.
@usableFromInline
final class UpstreamLink: @unchecked Sendable {
    @usableFromInline let upstream: AnyNodeReference
    @usableFromInline let removeEdge: @Sendable (UInt64) -> Void
    @usableFromInline var edgeID: UInt64 = 0
    /// The upstream node itself, strongly.
    @usableFromInline let holder: AnyObject

    @usableFromInline init<Up: Sendable>(upstream: Node<Up>) {
        self.upstream = AnyNodeReference(upstream)
        self.holder = upstream
        self.removeEdge = { [upstream] id in upstream.removeEdge(id) }
    }

    @usableFromInline func detach() {
        removeEdge(edgeID)
    }
}

/// A node of any value type, for walking the graph (names, ranks, edges), held unowned-safe:
/// it never keeps the node alive.
@usableFromInline
struct AnyNodeReference: @unchecked Sendable {
    @usableFromInline let check: UnownedCheck<AnyObject>
    @usableFromInline let rankGetter: @Sendable (AnyObject) -> Int
    @usableFromInline let rankSetter: @Sendable (AnyObject, Int) -> Void
    @usableFromInline let downstreamGetter: @Sendable (AnyObject) -> [AnyNodeReference]

    @usableFromInline init<V: Sendable>(_ node: Node<V>) {
        check = UnownedCheck(node as AnyObject)
        rankGetter = { ($0 as! Node<V>).rank }
        rankSetter = { ($0 as! Node<V>).rank = $1 }
        downstreamGetter = { ($0 as! Node<V>).edges.compactMap(\.target) }
    }

    @usableFromInline var object: AnyObject? { check.load() }
    @usableFromInline var rank: Int { object.map(rankGetter) ?? 0 }
    @usableFromInline func setRank(_ rank: Int) { if let object { rankSetter(object, rank) } }
    @usableFromInline var downstreamReferences: [AnyNodeReference] { object.map(downstreamGetter) ?? [] }
}

/// A node whose value can be set: `node.value = 2` as in the seed (assigning `nil` makes it
/// empty), ``set(_:)`` for any value including `nil` of an optional type, ``clean()`` to empty
/// it.
///
/// ```swift
/// let input = MutableNode<String>()   // empty
/// input.value = "h"                   // delivered
/// input.clean()                       // empty again, nothing delivered
/// ```
public final class MutableNode<Value: Sendable>: Node<Value>, @unchecked Sendable {
    /// A node holding `value`.
    ///
    /// ```swift
    /// let n = MutableNode(1)
    /// ```
    public init(_ value: Value) {
        super.init(slot: .value(value))
    }

    /// An empty node.
    ///
    /// ```swift
    /// let n = MutableNode<Int>()
    /// ```
    public init() {
        super.init(slot: .empty)
    }

    /// The current value; setting a value delivers it, setting `nil` empties the node (for an
    /// optional `Value`, use ``set(_:)`` to hold `nil` itself).
    ///
    /// ```swift
    /// node.value = 2
    /// ```
    @inlinable
    public override var value: Value? {
        get { super.value }
        set {
            if let newValue { receive(newValue, isSet: true) } else { makeEmpty() }
        }
    }

    /// Sets `value` (which may be `nil` when `Value` is optional) and delivers it.
    ///
    /// ```swift
    /// let n = MutableNode<Int?>(1)
    /// n.set(nil)   // holds nil, delivers nil
    /// ```
    @inlinable
    public func set(_ value: Value) {
        receive(value, isSet: true)
    }

    /// Empties the node. Nothing is delivered; derived nodes keep their last value.
    ///
    /// ```swift
    /// node.clean()
    /// node.isEmpty   // true
    /// ```
    public func clean() {
        makeEmpty()
    }
}
