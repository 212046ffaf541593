// `await using` looks up Symbol.asyncDispose when the declaration runs. Node 20.4+ defines
// it, as Symbol.for("nodejs.asyncDispose"); older runtimes and some bundlers do not, and
// down-levelled `await using` then fails with "Object not disposable". Installing the same
// registered symbol keeps Node's own disposables working too. Import for its side effect,
// before any class declares a `[Symbol.asyncDispose]` method.
const symbols = Symbol as { asyncDispose?: symbol };
symbols.asyncDispose ??= Symbol.for("nodejs.asyncDispose");
