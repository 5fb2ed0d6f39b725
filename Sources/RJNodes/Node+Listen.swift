import Dispatch
import RJLocks

// Listening, and who keeps what alive.
//
// EasyReact ties a listener to its owner with an associated object; Linux has none. Here:
//
// | reference                          | kind   | why                                               |
// | ---------------------------------- | ------ | ------------------------------------------------- |
// | owner registry -> listener         | strong | the owner "holds" its listeners while it lives    |
// | listener -> owner                  | (see OwnerLiveness) | must not keep its owner alive |
// | listener -> listened node          | strong | a chain nobody else stores keeps working          |
// | listened node -> listener (edge)   | strong | delivery; broken by cancel()                      |
// | derived node -> its source         | strong | the chain behind a listened node stays alive      |
// | source -> derived node (edge)      | weak   | a derived node nobody uses is freed               |
//
// When the owner is deallocated, the next value delivered to one of its listeners finds that
// (OwnerLiveness), skips the block and cancels the listener, which frees the nodes
// only it kept alive; registering any new listener also sweeps the registry for owners that
// are gone. So a dead owner's blocks are never called again, and its chains are freed at the
// latest on their next value or the next `listenedBy` anywhere.

/// Something that can be stopped: returned by every `withBlock`.
///
/// ```swift
/// let listening = node.listenedBy(self).withBlock { print($0) }
/// listening.cancel()
/// ```
public protocol Cancelable: AnyObject, Sendable {
    /// Stops delivery at once, also when called from inside the block; idempotent.
    func cancel()
}

extension Node {
    /// Starts a listener owned by `owner`: finish it with `withBlock`, `withBlock(on:)` or
    /// `withBlock(on: .main)`. The blocks run for as long as `owner` lives (or until cancelled),
    /// even if nothing else stores the node.
    ///
    /// ```swift
    /// a.map { $0 * 2 }.filter { $0 > 2 }.listenedBy(self).withBlock { print($0) }
    /// ```
    public func listenedBy(_ owner: AnyObject) -> ListenerBuilder<Value> {
        ListenerBuilder(node: self, owner: owner)
    }
}

/// The half-made listener `listenedBy` returns.
public struct ListenerBuilder<Value: Sendable> {
    @usableFromInline let node: Node<Value>
    @usableFromInline weak var owner: AnyObject?

    @usableFromInline init(node: Node<Value>, owner: AnyObject?) {
        self.node = node
        self.owner = owner
    }

    /// Calls `block` with every value, synchronously on the thread that set it; with the
    /// current value at once if the node is not empty.
    ///
    /// ```swift
    /// node.listenedBy(self).withBlock { value in print(value) }
    /// ```
    @inlinable @discardableResult
    public func withBlock(_ block: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        Listener.start(node: node, owner: owner, queue: nil, block: block)
    }

    /// Calls `block` with every value, asynchronously on `queue`.
    ///
    /// ```swift
    /// node.listenedBy(self).withBlock(on: .global()) { value in save(value) }
    /// ```
    @inlinable @discardableResult
    public func withBlock(on queue: DispatchQueue, _ block: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        Listener.start(node: node, owner: owner, queue: queue, block: block)
    }
}

@usableFromInline
final class Listener<Value: Sendable>: Cancelable, @unchecked Sendable {
    @usableFromInline let owner: OwnerLiveness
    @usableFromInline let node: Node<Value>
    @usableFromInline let queue: DispatchQueue?
    @usableFromInline let block: @Sendable (Value) -> Void
    @usableFromInline let cancelled = RJAtomic<Bool>(false)
    @usableFromInline var edgeID: UInt64 = 0

    @usableFromInline init(node: Node<Value>, owner: AnyObject, queue: DispatchQueue?, block: @escaping @Sendable (Value) -> Void) {
        self.node = node
        self.owner = OwnerLiveness(owner)
        self.queue = queue
        self.block = block
    }

    @inlinable
    static func start(node: Node<Value>, owner: AnyObject?, queue: DispatchQueue?,
                      block: @escaping @Sendable (Value) -> Void) -> any Cancelable {
        guard let owner else {
            // The owner is already gone: nothing may ever be called.
            return CancelledListener()
        }
        let listener = Listener(node: node, owner: owner, queue: queue, block: block)
        ListenerRegistry.register(listener, owner: owner)
        listener.edgeID = node.addEdge { [listener] value in listener.deliver(value) }
        if listener.cancelled.load(ordering: .acquiring) { node.removeEdge(listener.edgeID) }
        return listener
    }

    @inlinable
    func deliver(_ value: Value) {
        if cancelled.load(ordering: .relaxed) { return }
        guard owner.isAlive else {
            cancel()
            return
        }
        if let queue {
            queue.async { [self] in
                if !cancelled.load(ordering: .relaxed), owner.isAlive { block(value) }
            }
        } else {
            // A set made by the block (a MutableNode setter) starts its own wave, after this one.
            block(value)
        }
    }

    @usableFromInline
    func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        node.removeEdge(edgeID)
        ListenerRegistry.unregister(self)
    }
}

/// What `withBlock` returns when the owner was already gone.
@usableFromInline
final class CancelledListener: Cancelable {
    @usableFromInline init() {}
    @usableFromInline func cancel() {}
}

/// Owners and the listeners they keep alive (see the table at the top of this file).
@usableFromInline
final class ListenerRegistry: @unchecked Sendable {
    struct Entry {
        weak var owner: AnyObject?
        var listeners: [ObjectIdentifier: any Cancelable]
    }

    private static let shared = ListenerRegistry()
    private let lock = RJLock()
    // Guarded by `lock`.
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Which owner each listener was registered under.
    private var ownerOf: [ObjectIdentifier: ObjectIdentifier] = [:]

    @usableFromInline
    static func register(_ listener: any Cancelable, owner: AnyObject) {
        shared.register(listener, owner: owner)
    }

    @usableFromInline
    static func unregister(_ listener: any Cancelable) {
        shared.unregister(listener)
    }

    /// Listeners registered and not yet cancelled (for tests).
    static var count: Int {
        shared.lock.withLock { shared.entries.values.reduce(0) { $0 + $1.listeners.count } }
    }

    private func register(_ listener: any Cancelable, owner: AnyObject) {
        let ownerID = ObjectIdentifier(owner)
        let listenerID = ObjectIdentifier(listener)
        var dead: [any Cancelable] = []
        lock.withLock {
            // Sweep: owners that are gone (an identifier may even be reused by a new object).
            for (id, entry) in entries where entry.owner == nil {
                dead.append(contentsOf: entry.listeners.values)
                entries[id] = nil
            }
            var entry = entries[ownerID] ?? Entry(owner: owner, listeners: [:])
            entry.owner = owner
            entry.listeners[listenerID] = listener
            entries[ownerID] = entry
            ownerOf[listenerID] = ownerID
        }
        for listener in dead { listener.cancel() }
    }

    private func unregister(_ listener: any Cancelable) {
        let listenerID = ObjectIdentifier(listener)
        // Keep the removed listener until after the lock: its release may free nodes.
        let removed: (any Cancelable)? = lock.withLock {
            guard let ownerID = ownerOf.removeValue(forKey: listenerID) else { return nil }
            let removed = entries[ownerID]?.listeners.removeValue(forKey: listenerID)
            if entries[ownerID]?.listeners.isEmpty == true { entries[ownerID] = nil }
            return removed
        }
        _ = removed
    }
}
