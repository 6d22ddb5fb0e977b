package org.clustersim.core.trace;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;

/**
 * What goes into a trace of a {@link Timeline}, in the order it is written, whatever the file
 * format ({@link ChromeTraceWriter}'s JSON, {@link PerfettoTraceWriter}'s protobuf): one process
 * per server and one thread per (device, stream), so a serial resource never overlaps itself on
 * one track; every task as a slice on each of its streams, a point-to-point transfer joined from
 * the sender's slice to the receiver's by a flow; the counter tracks (link throughput) under an
 * extra process named {@code counters} after the servers; the markers (faults) last. Within a
 * thread, slices come in time order; nothing is collected, so a format can stream.
 */
public final class TraceContent {
    private TraceContent() {
    }

    /** Which end of a flow (a point-to-point transfer's arrow) a slice is. */
    public enum FlowEnd {
        NONE, SENDER, RECEIVER
    }

    /**
     * One task drawn on one of its streams.
     *
     * @param pid     the server's process id (node + 1)
     * @param tid     the stream's thread id (stream id + 1)
     * @param taskId  the task's id, also the flow id of a transfer
     * @param task    the task
     * @param startNs when it started
     * @param endNs   when it ended
     * @param flow    whether it starts or ends a flow
     */
    public record Slice(int pid, int tid, int taskId, Task task, long startNs, long endNs, FlowEnd flow) {
    }

    /** Receives the trace's parts in order. */
    public interface Sink {
        /** A process (a server, or the counters); {@code sortIndex} orders processes. */
        void process(int pid, String name, int sortIndex) throws IOException;

        /** A thread of a process (a device's stream); {@code sortIndex} orders all threads. */
        void thread(int pid, int tid, String name, int sortIndex) throws IOException;

        void slice(Slice slice) throws IOException;

        /**
         * One sample of counter track {@code track} (of process {@code pid}): {@code value} in
         * {@code unit} from {@code atNs} on.
         */
        void counter(int pid, int track, String name, String unit, long atNs, double value) throws IOException;

        /** A moment drawn across the whole trace. */
        void marker(ChromeTraceWriter.Marker marker) throws IOException;
    }

    /** Hands {@code sink} the whole trace of {@code timeline}. */
    public static void walk(Timeline timeline, List<ChromeTraceWriter.Marker> markers, Sink sink) throws IOException {
        TaskGraph graph = timeline.graph();
        int lastNode = Integer.MIN_VALUE;
        for (DeviceInfo d : graph.devices()) {
            if (d.node() != lastNode) {
                lastNode = d.node();
                sink.process(pid(d), processName(d), d.node());
            }
        }
        // Threads sort by device, then by stream creation order within the device.
        List<Stream> ordered = new ArrayList<>(graph.streams());
        ordered.sort(Comparator.comparingInt(Stream::device).thenComparingInt(Stream::id));
        for (int i = 0; i < ordered.size(); i++) {
            Stream s = ordered.get(i);
            DeviceInfo d = graph.devices().get(s.device());
            sink.thread(pid(d), tid(s), d.name() + " " + s.name(), i);
        }
        for (Stream s : graph.streams()) {
            int pid = pid(graph.devices().get(s.device()));
            int tid = tid(s);
            for (int i = 0, n = graph.streamLength(s.id()); i < n; i++) {
                int id = graph.streamTask(s.id(), i);
                Task task = graph.task(id);
                FlowEnd flow = !isPointToPoint(graph, task) ? FlowEnd.NONE
                        : task.stream(0) == s.id() ? FlowEnd.SENDER : FlowEnd.RECEIVER;
                sink.slice(new Slice(pid, tid, id, task, timeline.start(id), timeline.end(id), flow));
            }
        }
        Counters counters = timeline.counters();
        if (counters.trackCount() > 0) {
            int maxNode = 0;
            for (DeviceInfo d : graph.devices()) {
                maxNode = Math.max(maxNode, d.node());
            }
            int pid = maxNode + 2;
            sink.process(pid, "counters", maxNode + 1);
            for (Counters.Series s : counters.allSeries()) {
                String name = counters.name(s.track());
                String unit = counters.unit(s.track());
                for (int i = 0; i < s.timesNs().length; i++) {
                    sink.counter(pid, s.track(), name, unit, s.timesNs()[i], s.values()[i]);
                }
            }
        }
        for (ChromeTraceWriter.Marker m : markers) {
            sink.marker(m);
        }
    }

    /**
     * A transfer: one flow from the device of the task's first stream to the device of its
     * second (a two-rank collective has flows both ways and is not drawn as an arrow).
     */
    private static boolean isPointToPoint(TaskGraph graph, Task task) {
        if (!(task.work() instanceof Work.Communication c) || task.streamCount() != 2 || c.phases().size() != 1
                || c.phases().get(0).flows().size() != 1) {
            return false;
        }
        var flow = c.phases().get(0).flows().get(0);
        return flow.srcDevice() == graph.stream(task.stream(0)).device()
                && flow.dstDevice() == graph.stream(task.stream(1)).device() && flow.srcDevice() != flow.dstDevice();
    }

    /**
     * A server's process name, {@code node N}; a device named {@code group/device} (a job of a
     * shared cluster) names its process after the group.
     */
    private static String processName(DeviceInfo d) {
        int slash = d.name().indexOf('/');
        return slash > 0 ? d.name().substring(0, slash) : "node " + d.node();
    }

    private static int pid(DeviceInfo d) {
        return d.node() + 1;
    }

    private static int tid(Stream s) {
        return s.id() + 1;
    }
}
