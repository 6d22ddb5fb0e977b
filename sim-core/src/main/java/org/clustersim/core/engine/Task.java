package org.clustersim.core.engine;

/**
 * A unit of work on one or more streams. A task starts when it is at the head of every stream
 * it occupies and every task it depends on has finished. Compute tasks occupy one stream;
 * communication tasks occupy one stream on each participating device, which is how a send
 * meets its receive (and, later, how collective participants rendezvous).
 */
public final class Task {
    private final int id;
    private final String name;
    private final String category;
    private final Work work;
    private final int[] streams;
    private final int[] deps;

    Task(int id, String name, String category, Work work, int[] streams, int[] deps) {
        this.id = id;
        this.name = name;
        this.category = category;
        this.work = work;
        this.streams = streams;
        this.deps = deps;
    }

    public int id() {
        return id;
    }

    /** Display name, e.g. {@code F mb3 stage1}. */
    public String name() {
        return name;
    }

    /** Kind of work for grouping in traces and metrics, e.g. {@code forward} or {@code pp-p2p}. */
    public String category() {
        return category;
    }

    public Work work() {
        return work;
    }

    /** Number of streams the task occupies. */
    public int streamCount() {
        return streams.length;
    }

    /** The i-th stream the task occupies. */
    public int stream(int i) {
        return streams[i];
    }

    /** Number of tasks this one waits for. */
    public int depCount() {
        return deps.length;
    }

    /** The i-th task this one waits for. */
    public int dep(int i) {
        return deps[i];
    }

    @Override
    public String toString() {
        return name;
    }
}
