import RJLocks

// How a value travels through the graph: one propagation (a "wave") per set.
//
// A set starts a wave on the setter's thread, under the engine's lock (one wave at a time in the
// process; the lock is recursive, so a listener may read nodes). Inside the wave:
// - A node takes a value at most once (`lastWave`): a value goes once around a cycle and stops,
//   and no node ever updates twice for one set.
// - Values go depth-first, in the order edges were added (EasyReact's order): a node updates,
//   calls its listeners and its single-input derived nodes as they come.
// - A node with several inputs (combine, zip, merge, a node linked to more than one upstream) is
//   not updated as soon as one input changes: it is deferred, and deferred nodes run after the
//   depth-first pass, lowest rank first (a node's rank is one more than its highest upstream's).
//   So in a diamond (b = a.map, c = a.map, d = combine(b, c)) d runs once, after b and c: no
//   listener ever sees a mix of old and new values ("glitch-free").
// - A set made during the wave (by a listener, or by the closure of a transform: any
//   `MutableNode` setter) starts its own wave right after this one, so every listener sees the
//   values in the order they were set. Transforms feed their nodes inside the wave.
// Cost: per set, one lock, one wave counter, one compare per node reached; deferred nodes add a
// scan of the (short) deferred list.

/// The process-wide propagation engine. Every node operation takes its lock.
@usableFromInline
final class GraphEngine: @unchecked Sendable {
    @usableFromInline static let shared = GraphEngine()

    @usableFromInline let lock = RJLock(recursive: true)
    // Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) var wave: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) var inWave = false
    /// The context of the value being propagated (`set(_:context:)`), boxed: a nil test of a
    /// class reference is one compare, of an optional existential a call into the runtime.
    @usableFromInline @exclusivity(unchecked) var context: ValueContext?
    @usableFromInline @exclusivity(unchecked) var queuedWaves: [() -> Void] = []
    @usableFromInline @exclusivity(unchecked) var deferred: [Deferred] = []
    @usableFromInline @exclusivity(unchecked) var sequence: UInt64 = 0

    @usableFromInline
    struct Deferred {
        @usableFromInline let rank: Int
        @usableFromInline let order: UInt64
        @usableFromInline let node: ObjectIdentifier
        @usableFromInline let run: () -> Void

        @inlinable init(rank: Int, order: UInt64, node: ObjectIdentifier, run: @escaping () -> Void) {
            self.rank = rank
            self.order = order
            self.node = node
            self.run = run
        }
    }

    @usableFromInline init() {}
}

/// A value's context, as it travels through a wave.
@usableFromInline
final class ValueContext: @unchecked Sendable {
    @usableFromInline let value: any Sendable

    @usableFromInline init(_ value: any Sendable) {
        self.value = value
    }
}

extension GraphEngine {

    /// Ends the wave a set started (under the lock): runs the deferred nodes, then the waves
    /// that listeners started, each with its own deferred nodes.
    @usableFromInline
    func finishWave() {
        runDeferred()
        while !queuedWaves.isEmpty {
            let next = queuedWaves.removeFirst()
            wave &+= 1
            next()
            runDeferred()
        }
        context = nil
        inWave = false
    }

    /// Schedules `run` for a node with several inputs, once per wave, after the depth-first pass.
    @inlinable
    func deferUpdate(of node: AnyObject, rank: Int, _ run: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(node)
        if deferred.contains(where: { $0.node == id }) { return }
        sequence &+= 1
        deferred.append(Deferred(rank: rank, order: sequence, node: id, run: run))
    }

    @usableFromInline
    func runDeferred() {
        while !deferred.isEmpty {
            var best = 0
            for i in 1..<deferred.count
            where (deferred[i].rank, deferred[i].order) < (deferred[best].rank, deferred[best].order) {
                best = i
            }
            deferred.remove(at: best).run()
        }
    }

}
