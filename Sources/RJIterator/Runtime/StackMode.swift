import CRJContext

/// Where a generator's frames live while it is suspended.
///
/// - `dedicated`: a stack of its own (256 KiB of address space, committed page by page; a
///   suspended shallow generator keeps a page of it and the objects). Resumes switch in a few nanoseconds.
/// - `shared`: one of a few run stacks shared with other generators. While another
///   generator's frames are on it, this one's wait in a heap block the size of what they use
///   (a few hundred bytes for a shallow body), and are copied back before it runs. Millions
///   can be suspended at once; a resume that needs the copy costs it. A generator resumed from
///   inside other generators on several threads at once needs a dedicated stack
///   (docs/context-switching.md, "Shared stacks").
///
/// ```swift
/// RJRuntime.defaultStackMode = .shared                       // every generator made from now on
/// let g = Generator<Int, Void, Void>(stackMode: .dedicated) { y in try y.yield(1) }   // this one not
/// ```
public enum StackMode: Sendable, Hashable, CustomStringConvertible {
    case dedicated
    case shared

    @inlinable
    init(_ mode: rj_stack_mode) {
        self = mode == RJ_STACK_SHARED ? .shared : .dedicated
    }

    @inlinable
    var cValue: rj_stack_mode { self == .shared ? RJ_STACK_SHARED : RJ_STACK_DEDICATED }

    public var description: String { self == .shared ? "shared" : "dedicated" }
}
