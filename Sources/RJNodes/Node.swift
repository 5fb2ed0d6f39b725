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

    @usableFromInline
    struct Edge {
        @usableFromInline let id: UInt64
        @usableFromInline let deliver: @Sendable (Value) -> Void

        @inlinable init(id: UInt64, deliver: @escaping @Sendable (Value) -> Void) {
            self.id = id
            self.deliver = deliver
        }
    }

    /// Recursive: a listener may read, listen to or set the node it is called from (a set made
    /// from inside a delivery is queued, see `receive`) while other threads wait their turn.
    @usableFromInline let lock = RJLock(recursive: true)
    // Guarded by `lock`.
    // (`@exclusivity(unchecked)`: the lock already makes the accesses exclusive, and the dynamic
    // check cost more than a listener call.)
    @usableFromInline @exclusivity(unchecked) var slot: Slot
    @usableFromInline @exclusivity(unchecked) var edges: [Edge] = []
    @usableFromInline @exclusivity(unchecked) var delivering = false
    @usableFromInline @exclusivity(unchecked) var queued: [Value] = []
    @usableFromInline @exclusivity(unchecked) var nextEdgeID: UInt64 = 0
    /// Set on a derived node: holds its source (strongly, keeping it alive) and removes this
    /// node's edge from it when this node goes.
    @usableFromInline var detachFromSource: (@Sendable () -> Void)?

    @usableFromInline
    init(slot: Slot) {
        self.slot = slot
    }

    deinit {
        detachFromSource?()
    }

    /// The current value, or `nil` while the node is empty. (For a node of an optional type,
    /// `.some(nil)` is a held `nil`; see ``isEmpty``.)
    ///
    /// ```swift
    /// MutableNode(3).value       // Optional(3)
    /// MutableNode<Int>().value   // nil
    /// ```
    public var value: Value? {
        lock.withLock {
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
        lock.withLock {
            if case .empty = slot { return true }
            return false
        }
    }

    // MARK: Propagation

    /// Holds `value` and delivers it to every edge, in the order they were added. Called by
    /// `MutableNode`'s setters and by the transforms feeding this node.
    @inlinable
    final func receive(_ value: Value) {
        lock.withLock {
            if delivering {
                // A set from inside this node's own delivery (recursive lock: same thread).
                queued.append(value)
                return
            }
            delivering = true
            var next = value
            while true {
                slot = .value(next)
                let current = edges
                for edge in current { edge.deliver(next) }
                if queued.isEmpty { break }
                next = queued.removeFirst()
            }
            delivering = false
        }
    }

    /// Makes the node empty; nothing is delivered.
    @usableFromInline
    final func makeEmpty() {
        lock.withLock { slot = .empty }
    }

    /// Adds an edge and, if the node holds a value, delivers it to that edge at once (under
    /// the lock, so no value is missed or seen twice in between). Returns the edge's id.
    @usableFromInline
    final func addEdge(_ deliver: @escaping @Sendable (Value) -> Void) -> UInt64 {
        lock.withLock {
            nextEdgeID += 1
            let id = nextEdgeID
            edges.append(Edge(id: id, deliver: deliver))
            if case .value(let v) = slot { deliver(v) }
            return id
        }
    }

    @usableFromInline
    final func removeEdge(_ id: UInt64) {
        lock.withLock { edges.removeAll { $0.id == id } }
    }

    /// Makes a node fed by this one: `transform` turns each value of this node into calls to
    /// the new node's `receive` (or none). The new node keeps this one alive; this one keeps
    /// the new one only weakly.
    @inlinable
    final func derive<Down: Sendable>(
        _ transform: @escaping @Sendable (_ value: Value, _ downstream: Node<Down>) -> Void
    ) -> Node<Down> {
        let downstream = Node<Down>(slot: .empty)
        let target = UnownedCheck(downstream)
        let id = addEdge { value in
            if let downstream = target.load() { transform(value, downstream) }
        }
        downstream.detachFromSource = { [self] in removeEdge(id) }
        return downstream
    }
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
    public override var value: Value? {
        get { super.value }
        set {
            if let newValue { receive(newValue) } else { makeEmpty() }
        }
    }

    /// Sets `value` (which may be `nil` when `Value` is optional) and delivers it.
    ///
    /// ```swift
    /// let n = MutableNode<Int?>(1)
    /// n.set(nil)   // holds nil, delivers nil
    /// ```
    public func set(_ value: Value) {
        receive(value)
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
