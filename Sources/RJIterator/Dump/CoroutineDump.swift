import CRJContext

/// A snapshot of every live generator, `RJIterator`, `rj_async` task and `AsyncGenerator`, made
/// by ``RJRuntime/dump(stuckAfter:)``: what each is, where it was made, its state, what it waits
/// on, and where a suspended one is suspended. Its `description` groups identical stacks, as Go does.
///
/// ```swift
/// let dump = RJRuntime.dump()
/// print(dump)                                   // the text
/// let stuck = dump.coroutines.filter(\.isStuck) // or look at the values
/// ```
public struct CoroutineDump: Sendable, CustomStringConvertible {
    /// One live coroutine.
    ///
    /// ```swift
    /// for c in RJRuntime.dump().coroutines where c.isStuck {
    ///     print(c.kind, c.file, c.line, c.hint ?? "", c.frames.first?.symbol ?? "?")
    /// }
    /// ```
    public struct Coroutine: Sendable, CustomStringConvertible {
        /// The API it was made with.
        public enum Kind: String, Sendable {
            case generator = "Generator"
            case rjIterator = "RJIterator"
            case rjAsyncTask = "rj_async task"
            case asyncGenerator = "AsyncGenerator"
        }

        /// What a suspended coroutine waits for.
        ///
        /// ```swift
        /// if case .timeout(let left)? = coroutine.waiting { print("times out in \(left) s") }
        /// ```
        public enum Waiting: Sendable, Equatable, CustomStringConvertible {
            /// In `yield`: for its consumer's next request.
            case yield
            /// In `yieldAll`: for the generator it delegates to (listed with its delegator).
            case delegation
            /// In `rj_await` of a callback that has not been called yet.
            case callback
            /// In `rj_await` of a promise that has not settled.
            case promise
            /// In `rj_await(_:timeout:)`; the seconds left before it times out (negative: overdue).
            case timeout(remaining: Double)
            /// In `rj_awaitValue` of a Swift `async` function.
            case asyncFunction
            /// In `rj_await(all:)` of this many pieces of work.
            case all(Int)
            /// In `rj_await(firstOf:)` of this many pieces of work.
            case firstOf(Int)
            /// In `rj_await(nextOf:)` (or `yieldAll`) of an async generator, for its next step.
            case nextStep
            /// In `rj_awaitValue(nextOf:)` (or `yieldAll`) of an `AsyncSequence`.
            case asyncSequence

            public var description: String {
                switch self {
                case .yield: return "yield"
                case .delegation: return "yieldAll"
                case .callback: return "rj_await of a callback"
                case .promise: return "rj_await of a promise"
                case .timeout(let remaining):
                    return remaining >= 0
                        ? "rj_await with a timeout (\(CoroutineDump.seconds(remaining)) left)"
                        : "rj_await with a timeout (due \(CoroutineDump.seconds(-remaining)) ago)"
                case .asyncFunction: return "rj_awaitValue of an async function"
                case .all(let n): return "rj_await(all:) of \(n)"
                case .firstOf(let n): return "rj_await(firstOf:) of \(n)"
                case .nextStep: return "rj_await(nextOf:) of an async generator"
                case .asyncSequence: return "rj_awaitValue(nextOf:) of an async sequence"
                }
            }

            /// The kind alone, without counts or times: what groups compare.
            var kind: String {
                switch self {
                case .timeout: return "rj_await with a timeout"
                case .all: return "rj_await(all:)"
                case .firstOf: return "rj_await(firstOf:)"
                default: return description
                }
            }
        }

        /// The coroutine's id (`rj_coro_id`, never reused in the process); `nil` for one that has
        /// not run yet (its coroutine is made at the first `next`) or that has completed.
        public let id: UInt64?
        public let kind: Kind
        public let state: GeneratorState
        /// Where it was made: the `#fileID` and line of the initialiser's or `rj_async`'s call.
        public let file: String
        public let line: Int
        /// Its stack mode, once it has run.
        public let stackMode: StackMode?
        /// The thread id (`gettid`'s, as `top` and debuggers show it) it runs on, if that is the
        /// thread taking the dump, or last ran on, if suspended; `nil` otherwise.
        public let thread: Int?
        /// What it waits for, if suspended.
        public let waiting: Waiting?
        /// The id of the generator that delegates to it with `yieldAll`, if any.
        public let delegatedFrom: UInt64?
        /// The id of the generator whose stack runs its body, when that is not its own: a fresh
        /// delegate runs adopted on the stack of the body that delegates to it (docs/generators.md,
        /// "Delegation"). Its frames are listed with that generator's.
        public let runsOnStackOf: UInt64?
        /// For how long it has waited, in seconds, when that is known: an await's suspension
        /// is timed; a suspension in `yield` is not (timing every yield would cost every switch).
        public let waitingFor: Double?
        /// Where it is suspended, innermost first, without the library's own frames; empty unless
        /// suspended (docs/debugging.md, "What a stack looks like, and when frames are missing").
        public let frames: [Frame]
        /// Suspended in an await for at least the dump's `stuckAfter`, or in one whose timeout is
        /// overdue (its queue does not run); an await whose timeout is still ahead is not stuck.
        public let isStuck: Bool

        /// Why it looks stuck, when `isStuck`: `"callback not called after 12 s"`.
        public var hint: String? {
            guard isStuck, let waiting else { return nil }
            let after = waitingFor.map { " after \(CoroutineDump.seconds($0))" } ?? ""
            switch waiting {
            case .callback: return "callback not called" + after
            case .promise: return "promise not settled" + after
            case .asyncFunction: return "async function not returned" + after
            case .all: return "not every callback called" + after
            case .firstOf: return "no callback called" + after
            case .nextStep: return "async generator's step not answered" + after
            case .asyncSequence: return "async sequence's element not given" + after
            case .timeout: return "timeout overdue: its queue does not run"
            case .yield, .delegation: return nil
            }
        }

        /// One line: `#12 rj_async task, suspended in rj_await of a callback for 12.0 s, made at
        /// Demo/main.swift:9, thread 4242`.
        public var description: String {
            var text = id.map { "#\($0)" } ?? "#-"
            text += " \(kind.rawValue), \(stateText)"
            text += ", made at \(file):\(line)"
            if let thread { text += state == .running ? ", thread \(thread) (this one)" : ", last ran on thread \(thread)" }
            if let stackMode { text += ", \(stackMode) stack" }
            if let hint { text += "  [STUCK? \(hint)]" }
            return text
        }

        var stateText: String {
            switch state {
            case .created: return "created (not started)"
            case .running: return "running"
            case .completed: return "completed"
            case .suspended:
                var text = "suspended"
                if let waiting { text += " in \(waiting)" }
                if let waitingFor { text += " for \(CoroutineDump.seconds(waitingFor))" }
                if let delegatedFrom { text += ", delegated to by #\(delegatedFrom)" }
                if let runsOnStackOf { text += ", on #\(runsOnStackOf)'s stack" }
                return text
            }
        }
    }

    /// A frame of a suspended coroutine's stack.
    ///
    /// ```swift
    /// let names = coroutine.frames.compactMap(\.symbol)   // innermost first
    /// ```
    public struct Frame: Sendable, Hashable, CustomStringConvertible {
        /// The return address (the first frame: the resume address).
        public let address: UInt
        /// The function's name, demangled; `nil` when the image has no symbol for it.
        public let symbol: String?
        /// The address's offset in that function.
        public let offset: UInt
        /// The file name of the executable or library that holds it.
        public let image: String

        public var description: String {
            let name = symbol.map { "\($0) + \(offset)" } ?? "0x" + String(address, radix: 16)
            return image.isEmpty ? name : "\(name)  (\(image))"
        }
    }

    /// Every live coroutine, in no particular order.
    public let coroutines: [Coroutine]
    /// The threshold the dump marked coroutines stuck by, in seconds.
    public let stuckAfter: Double

    /// Coroutines whose kind, state, wait and stack are the same, as Go groups goroutines.
    public var groups: [[Coroutine]] {
        var order: [String] = []
        var byKey: [String: [Coroutine]] = [:]
        for c in coroutines {
            let key = "\(c.kind.rawValue)|\(c.state)|\(c.waiting?.kind ?? "")|\(c.isStuck)|"
                + c.frames.map { $0.symbol ?? String($0.address) }.joined(separator: "|")
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(c)
        }
        // Stuck ones first, then the largest groups.
        return order.map { byKey[$0]! }.enumerated().sorted { a, b in
            if a.element[0].isStuck != b.element[0].isStuck { return a.element[0].isStuck }
            if a.element.count != b.element.count { return a.element.count > b.element.count }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The text: a summary line, then one block per group.
    public var description: String {
        let count = { (s: GeneratorState) in coroutines.filter { $0.state == s }.count }
        let stuck = coroutines.filter(\.isStuck).count
        var text = "RJIterator: \(coroutines.count) coroutine\(coroutines.count == 1 ? "" : "s") "
            + "(\(count(.suspended)) suspended, \(count(.running)) running, \(count(.created)) created, "
            + "\(count(.completed)) completed)"
        if stuck > 0 { text += "; \(stuck) waiting longer than \(CoroutineDump.seconds(stuckAfter))" }
        text += "\n"
        for group in groups {
            let first = group[0]
            text += "\n"
            if group.count > 1 {
                text += "\(group.count) x \(first.kind.rawValue), \(first.state)"
                if let waiting = first.waiting { text += " in \(waiting.kind)" }
                if first.isStuck { text += "  [STUCK?]" }  // each line below says why
                text += ":\n"
                for c in group { text += "  \(c)\n" }
            } else {
                text += "\(first)\n"
            }
            for frame in first.frames { text += "    \(frame)\n" }
            if first.state == .suspended, first.frames.isEmpty, first.delegatedFrom == nil, first.runsOnStackOf == nil {
                text += "    (no frames read)\n"
            }
        }
        return text
    }

    static func seconds(_ s: Double) -> String {
        if s >= 100 { return "\(Int(s.rounded())) s" }
        if s >= 1 { return "\((s * 10).rounded() / 10) s" }
        return "\(Int((s * 1000).rounded())) ms"
    }
}
