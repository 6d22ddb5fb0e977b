package org.clustersim.strategies.pipeline;

import java.util.Arrays;

import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Timeline;

/**
 * Draws each rank's compute stream as one line of text, one character per time unit, in the
 * style of the figures of the zero-bubble and DualPipe papers: a task starts with its letter
 * (F forward, B backward or backward-input, W weight gradient, X an overlapped F&amp;B pair)
 * followed by its microbatch number modulo 10, then lower-case letters for the rest of its
 * length; dots are idle time.
 */
public final class AsciiTimeline {
    private AsciiTimeline() {
    }

    /** The smallest task duration on any compute stream, halved, so every task is at least two characters wide. */
    public static long defaultUnit(Timeline timeline) {
        long min = Long.MAX_VALUE;
        TaskGraph g = timeline.graph();
        for (Stream s : g.streams()) {
            if (s.kind() != StreamKind.COMPUTE) {
                continue;
            }
            for (int i = 0; i < g.streamLength(s.id()); i++) {
                int t = g.streamTask(s.id(), i);
                long d = timeline.end(t) - timeline.start(t);
                if (d > 0) {
                    min = Math.min(min, d);
                }
            }
        }
        return min == Long.MAX_VALUE ? 1 : Math.max(1, min / 2);
    }

    /** One line per device's compute stream, in device order. */
    public static String[] render(Timeline timeline, long unitNs) {
        TaskGraph g = timeline.graph();
        int width = (int) ((timeline.makespan() + unitNs - 1) / unitNs);
        String[] lines = new String[g.devices().size()];
        for (Stream s : g.streams()) {
            if (s.kind() != StreamKind.COMPUTE) {
                continue;
            }
            char[] row = new char[width];
            Arrays.fill(row, '.');
            for (int i = 0; i < g.streamLength(s.id()); i++) {
                int id = g.streamTask(s.id(), i);
                Task task = g.task(id);
                int from = (int) Math.round((double) timeline.start(id) / unitNs);
                int to = (int) Math.round((double) timeline.end(id) / unitNs);
                char letter = letter(task);
                for (int c = from; c < to && c < width; c++) {
                    row[c] = c == from ? letter : c == from + 1 ? digit(task) : Character.toLowerCase(letter);
                }
            }
            lines[s.device()] = new String(row);
        }
        return lines;
    }

    private static char letter(Task task) {
        TaskTag tag = task.tag();
        if (tag.traffic() != TaskTag.Traffic.NONE) {
            return '?';
        }
        return switch (tag.pass()) {
            case FORWARD -> 'F';
            case BACKWARD, BACKWARD_INPUT -> 'B';
            case BACKWARD_WEIGHT -> 'W';
            case OVERLAPPED -> 'X';
            default -> '?';
        };
    }

    /** Microbatch number modulo 10, from the task's tag (an overlapped pair's: its forward's). */
    private static char digit(Task task) {
        int mb = task.tag().microbatch();
        return mb < 0 ? '?' : (char) ('0' + mb % 10);
    }
}
