package org.clustersim.study.engine;

import java.io.Serializable;
import java.util.List;


/**
 * Where a batch of independent simulations runs: threads of this JVM ({@link EmbeddedPool}) or
 * a distributed engine found at run time ({@link TaskEngineProvider}, such as Apache Spark in the
 * sim-spark module). Every implementation returns results in the order of the inputs, whatever
 * the order tasks finish in, so a command's output depends only on its inputs.
 */
public interface TaskEngine extends AutoCloseable {

    /**
     * A computation applied to each input. Serializable because a distributed engine ships it to
     * other JVMs; it must not depend on state outside itself and its input.
     */
    @FunctionalInterface
    interface Job<I, O> extends Serializable {
        O apply(I input);
    }

    /**
     * Applies {@code job} to every input, reporting each completion to {@code progress}.
     *
     * @return the outputs, in the order of {@code inputs}
     */
    <I extends Serializable, O extends Serializable> List<O> map(List<I> inputs, Job<I, O> job, Progress progress);

    /** Tasks it runs at once (threads, executor cores), for estimates of how long work takes. */
    default int slots() {
        return 1;
    }

    /** What runs the tasks, for messages: "embedded pool, 2 threads", "spark local[2]". */
    String describe();

    /** Releases threads or the engine's context. */
    @Override
    void close();
}
