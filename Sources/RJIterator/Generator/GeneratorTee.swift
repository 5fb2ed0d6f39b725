// `tee`'s storage: a linked list of blocks the readers walk, each freed when its last reader
// leaves it; the source is pulled only by the reader furthest ahead.

extension Generator where Input == Void {
    /// Splits the generator into `count` readers that each see every value it yields, in order
    /// (Python's `itertools.tee`), advancing it only as far as the reader furthest ahead needs.
    /// A body that reads its own readers makes a reference cycle: close it when done.
    ///
    /// ```swift
    /// let numbers = Generator<Int, Void, Void> { y in for i in 1...3 { try y.yield(i) } }
    /// let readers = numbers.tee(2)
    /// print(try readers[0].nextValue()!, try readers[0].nextValue()!)   // 1 2
    /// print(Array(readers[1]))                                          // [1, 2, 3]
    /// ```
    ///
    /// - Parameter count: how many readers (at least 1).
    @inlinable
    public func tee(_ count: Int = 2) -> [TeeReader<Element>] {
        if count < 1 { fatalError("RJIterator: tee needs at least one reader, got \(count)") }
        let source = TeeSource<Element>(site: record.site) { [self] in try self.nextValue() }
        return (0..<count).map { _ in TeeReader(source) }
    }
}

/// One reader of a generator split with ``Generator/tee(_:)``, at its own pace. Single-pass;
/// not `Sendable` (hand it to another thread only as you would the generator).
///
/// ```swift
/// let readers = Generator<Int, Void, Void> { y in try y.yield(7) }.tee()
/// try readers[0].nextValue()   // 7, and 7 again from readers[1]
/// ```
public final class TeeReader<Element> {
    @usableFromInline let source: TeeSource<Element>
    /// The block holding this reader's next value, and its index there.
    // Unchecked: a reader is used by one thread at a time, and no access to these spans a
    // call (the dynamic check cost more than reading a value).
    @usableFromInline @exclusivity(unchecked) var block: TeeBlock<Element>
    @usableFromInline @exclusivity(unchecked) var index = 0

    /// A reader that starts at the source's newest value (all readers are made before any read).
    @usableFromInline init(_ source: TeeSource<Element>) {
        self.source = source
        self.block = source.tail
        self.index = source.tail.values.count
    }

    /// The next value, or `nil` once the generator has returned; an error of the generator's
    /// body is thrown (to this reader, and again to every reader that reaches that point).
    ///
    /// ```swift
    /// while let x = try reader.nextValue() { print(x) }
    /// ```
    @inlinable
    public func nextValue() throws -> Element? {
        while true {
            if index < block.values.count {
                defer { index += 1 }
                return block.values[index]
            }
            if let next = block.next {
                block = next
                index = 0
                continue
            }
            // Everything read so far: this reader is the one furthest ahead.
            guard try source.pull() else { return nil }
        }
    }
}

extension TeeReader: Sequence {
    /// `for x in reader`: reads the values this reader has not read yet; an error of the
    /// generator's body is handled as in a for-in over the generator (``nextValue()`` throws it).
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(reader: self)
    }

    /// The iterator of a ``TeeReader``; iterating it advances the reader.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let reader: TeeReader<Element>

        @usableFromInline init(reader: TeeReader<Element>) {
            self.reader = reader
        }

        @inlinable
        public mutating func next() -> Element? {
            do {
                return try reader.nextValue()
            } catch {
                forInFailed(error, reading: reader.source.site, generator: nil, throughTee: true)
                return nil
            }
        }
    }
}

/// A block of values read from the generator, and the next block once this one is full.
@usableFromInline
final class TeeBlock<Element> {
    @usableFromInline static var capacity: Int { 64 }
    @usableFromInline @exclusivity(unchecked) var values: ContiguousArray<Element> = []
    @usableFromInline @exclusivity(unchecked) var next: TeeBlock?

    @usableFromInline init() {
        values.reserveCapacity(Self.capacity)
    }
}

/// The generator behind a tee's readers, and the block values are appended to.
@usableFromInline
final class TeeSource<Element> {
    @usableFromInline let next: () throws -> Element?
    /// Where the generator was made (`CoroutineRecord.site`), for a for-in's message.
    @usableFromInline let site: UInt64
    /// Earlier blocks are held only by the readers still in them: the source never looks back.
    @usableFromInline @exclusivity(unchecked) var tail = TeeBlock<Element>()
    @usableFromInline @exclusivity(unchecked) var finished = false

    @usableFromInline init(site: UInt64, _ next: @escaping () throws -> Element?) {
        self.site = site
        self.next = next
    }

    /// Reads one more value into the last block; `false` once the generator has returned.
    @inlinable
    func pull() throws -> Bool {
        if finished { return false }
        guard let value = try next() else {
            finished = true
            return false
        }
        if tail.values.count == TeeBlock<Element>.capacity {
            let block = TeeBlock<Element>()
            tail.next = block
            tail = block
        }
        tail.values.append(value)
        return true
    }
}
