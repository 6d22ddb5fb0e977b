package org.clustersim.core.engine;

/**
 * A unit of work on one or more streams. A task starts when it is at the head of every stream
 * it occupies and every task it depends on has finished. Compute tasks occupy one stream;
 * communication tasks occupy one stream on each participating device, which is how a send
 * meets its receive (and, later, how collective participants rendezvous).
 *
 * <p>A view of one row of its {@link TaskGraph}, which stores tasks in primitive arrays; two
 * views of the same task are equal.
 */
public final class Task {
    private final TaskGraph graph;
    private final int id;

    Task(TaskGraph graph, int id) {
        this.graph = graph;
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** Display name, e.g. {@code F mb3 stage1}. */
    public String name() {
        return graph.name(id);
    }

    /** Display category, e.g. {@code forward} or {@code pp-p2p}: the tag's ({@link TaskTag#category}). */
    public String category() {
        return graph.category(id);
    }

    /** What the task is, in typed fields: pass, microbatch, chunk, layer, traffic. */
    public TaskTag tag() {
        return graph.tag(id);
    }

    public Work work() {
        return graph.work(id);
    }

    /** Number of streams the task occupies. */
    public int streamCount() {
        return graph.streamCount(id);
    }

    /** The i-th stream the task occupies. */
    public int stream(int i) {
        return graph.taskStream(id, i);
    }

    /** Number of tasks this one waits for. */
    public int depCount() {
        return graph.depCount(id);
    }

    /** The i-th task this one waits for. */
    public int dep(int i) {
        return graph.dep(id, i);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Task t && t.graph == graph && t.id == id;
    }

    @Override
    public int hashCode() {
        return id;
    }

    @Override
    public String toString() {
        return name();
    }
}
