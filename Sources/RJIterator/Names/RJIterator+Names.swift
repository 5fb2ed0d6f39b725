// The module's types under the seed class's name, which shadows the module's in users' code
// (docs/generators.md, "A `Sequence` type over a generator: naming the types"). Each alias goes
// through an underscored one, hidden from the documentation: inside the class, its own name comes first.

extension RJIterator {
    /// The module's `Generator`, spelled `RJIterator.Generator`: inside a `Sequence` type (where
    /// `Generator` alone is the standard library's `Sequence.Generator`), or beside another module's.
    ///
    /// ```swift
    /// struct Countdown: Sequence {
    ///     let from: Int
    ///     func makeIterator() -> RJIterator.Generator<Int, Void, Void> {
    ///         RJIterator.Generator { y in for i in stride(from: from, through: 1, by: -1) { try y.yield(i) } }
    ///     }
    /// }
    /// ```
    public typealias Generator<Element, Input, Return> = _RJGenerator<Element, Input, Return>
    /// The module's `Yielder`, spelled `RJIterator.Yielder`.
    public typealias Yielder<Element, Input> = _RJYielder<Element, Input>
    /// The module's `GeneratorStep`, spelled `RJIterator.GeneratorStep`.
    public typealias GeneratorStep<Element, Return> = _RJGeneratorStep<Element, Return>
    /// The module's `GeneratorIterator`, spelled `RJIterator.GeneratorIterator`.
    public typealias GeneratorIterator<Element, Return> = _RJGeneratorIterator<Element, Return>
    /// The module's `GeneratorError`, spelled `RJIterator.GeneratorError`.
    public typealias GeneratorError = _RJGeneratorError
    /// The module's `GeneratorState`, spelled `RJIterator.GeneratorState`.
    public typealias GeneratorState = _RJGeneratorState
    /// The module's `GeneratorExit`, spelled `RJIterator.GeneratorExit`.
    public typealias GeneratorExit = _RJGeneratorExit
    /// The module's `TeeReader`, spelled `RJIterator.TeeReader`.
    public typealias TeeReader<Element> = _RJTeeReader<Element>
    /// The module's `AsyncGenerator`, spelled `RJIterator.AsyncGenerator`.
    public typealias AsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable> = _RJAsyncGenerator<Element, Input, Return>
    /// The module's `AsyncYielder`, spelled `RJIterator.AsyncYielder`.
    public typealias AsyncYielder<Element: Sendable, Input: Sendable> = _RJAsyncYielder<Element, Input>
    /// The module's `AsyncGeneratorIterator`, spelled `RJIterator.AsyncGeneratorIterator`.
    public typealias AsyncGeneratorIterator<Element: Sendable, Return: Sendable> = _RJAsyncGeneratorIterator<Element, Return>
    /// The module's `RJResult`, spelled `RJIterator.RJResult`.
    public typealias RJResult = _RJRJResult
    /// The module's `RJAsyncTask`, spelled `RJIterator.RJAsyncTask`.
    public typealias RJAsyncTask = _RJRJAsyncTask
    /// The module's `RJMainActorTask`, spelled `RJIterator.RJMainActorTask`.
    public typealias RJMainActorTask = _RJRJMainActorTask
    /// The module's `RJAsyncError`, spelled `RJIterator.RJAsyncError`.
    public typealias RJAsyncError = _RJRJAsyncError
    /// The module's `RJAsyncCallback`, spelled `RJIterator.RJAsyncCallback`.
    public typealias RJAsyncCallback = _RJRJAsyncCallback
    /// The module's `RJAsyncClosure`, spelled `RJIterator.RJAsyncClosure`.
    public typealias RJAsyncClosure = _RJRJAsyncClosure
    /// The module's `RJRuntime`, spelled `RJIterator.RJRuntime`.
    public typealias RJRuntime = _RJRJRuntime
    /// The module's `StackMode`, spelled `RJIterator.StackMode`.
    public typealias StackMode = _RJStackMode
    /// The module's `CoroutineDump`, spelled `RJIterator.CoroutineDump`.
    public typealias CoroutineDump = _RJCoroutineDump
}

@_documentation(visibility: internal)
public typealias _RJGenerator<Element, Input, Return> = Generator<Element, Input, Return>
@_documentation(visibility: internal)
public typealias _RJYielder<Element, Input> = Yielder<Element, Input>
@_documentation(visibility: internal)
public typealias _RJGeneratorStep<Element, Return> = GeneratorStep<Element, Return>
@_documentation(visibility: internal)
public typealias _RJGeneratorIterator<Element, Return> = GeneratorIterator<Element, Return>
@_documentation(visibility: internal)
public typealias _RJGeneratorError = GeneratorError
@_documentation(visibility: internal)
public typealias _RJGeneratorState = GeneratorState
@_documentation(visibility: internal)
public typealias _RJGeneratorExit = GeneratorExit
@_documentation(visibility: internal)
public typealias _RJTeeReader<Element> = TeeReader<Element>
@_documentation(visibility: internal)
public typealias _RJAsyncGenerator<Element: Sendable, Input: Sendable, Return: Sendable> = AsyncGenerator<Element, Input, Return>
@_documentation(visibility: internal)
public typealias _RJAsyncYielder<Element: Sendable, Input: Sendable> = AsyncYielder<Element, Input>
@_documentation(visibility: internal)
public typealias _RJAsyncGeneratorIterator<Element: Sendable, Return: Sendable> = AsyncGeneratorIterator<Element, Return>
@_documentation(visibility: internal)
public typealias _RJRJResult = RJResult
@_documentation(visibility: internal)
public typealias _RJRJAsyncTask = RJAsyncTask
@_documentation(visibility: internal)
public typealias _RJRJMainActorTask = RJMainActorTask
@_documentation(visibility: internal)
public typealias _RJRJAsyncError = RJAsyncError
@_documentation(visibility: internal)
public typealias _RJRJAsyncCallback = RJAsyncCallback
@_documentation(visibility: internal)
public typealias _RJRJAsyncClosure = RJAsyncClosure
@_documentation(visibility: internal)
public typealias _RJRJRuntime = RJRuntime
@_documentation(visibility: internal)
public typealias _RJStackMode = StackMode
@_documentation(visibility: internal)
public typealias _RJCoroutineDump = CoroutineDump
