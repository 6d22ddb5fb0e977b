package org.clustersim.core.engine;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.kernel.SimulationException;

/**
 * Thrown when no event is pending but tasks remain: every remaining stream head waits for
 * something that can no longer happen. The message names each blocked stream, the task at
 * its head and what that task waits for.
 */
public final class DeadlockException extends SimulationException {
    private static final long serialVersionUID = 1L;
    private static final int MAX_LISTED = 20;

    private final List<String> blocked;

    private DeadlockException(long timeNs, String message, List<String> blocked) {
        super(timeNs, message);
        this.blocked = List.copyOf(blocked);
    }

    /** One line per blocked stream: stream, head task and what it waits for. */
    public List<String> blocked() {
        return blocked;
    }

    static DeadlockException describe(TaskGraph graph, int[] cursor, long[] end, long now) {
        List<String> lines = new ArrayList<>();
        int remaining = 0;
        for (int t = 0; t < graph.taskCount(); t++) {
            if (end[t] < 0) {
                remaining++;
            }
        }
        for (int s = 0; s < cursor.length; s++) {
            if (cursor[s] >= graph.streamLength(s)) {
                continue;
            }
            int head = graph.streamTask(s, cursor[s]);
            Task task = graph.task(head);
            StringBuilder why = new StringBuilder();
            why.append(streamName(graph, s)).append(": head task '").append(task.name()).append("' waits for");
            boolean any = false;
            for (int i = 0; i < task.depCount(); i++) {
                int d = task.dep(i);
                if (end[d] < 0) {
                    why.append(any ? "," : "").append(" task '").append(graph.task(d).name()).append('\'');
                    any = true;
                }
            }
            for (int i = 0; i < task.streamCount(); i++) {
                int other = task.stream(i);
                int otherHead = cursor[other] < graph.streamLength(other)
                        ? graph.streamTask(other, cursor[other]) : -1;
                if (otherHead != head) {
                    why.append(any ? "," : "").append(" stream ").append(streamName(graph, other))
                            .append(" to reach it (its head is '")
                            .append(otherHead < 0 ? "nothing" : graph.task(otherHead).name()).append("')");
                    any = true;
                }
            }
            if (!any) {
                why.append(" nothing (started but never finished)");
            }
            lines.add(why.toString());
        }
        StringBuilder msg = new StringBuilder("deadlock: ").append(remaining).append(" of ")
                .append(graph.taskCount()).append(" tasks never ran; blocked streams:");
        for (int i = 0; i < lines.size() && i < MAX_LISTED; i++) {
            msg.append("\n  ").append(lines.get(i));
        }
        if (lines.size() > MAX_LISTED) {
            msg.append("\n  ... and ").append(lines.size() - MAX_LISTED).append(" more blocked streams");
        }
        return new DeadlockException(now, msg.toString(), lines);
    }

    private static String streamName(TaskGraph graph, int s) {
        Stream stream = graph.stream(s);
        return graph.devices().get(stream.device()).name() + "/" + stream.name();
    }
}
