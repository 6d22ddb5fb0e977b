package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Structural checks every Chrome trace we write must pass. */
final class TraceChecks {
    private TraceChecks() {
    }

    /** Summary of a checked trace. */
    record Counts(int complete, int flowStarts, int threads, int counterSamples) {
    }

    static Counts check(Path trace) throws IOException {
        JsonNode root = new ObjectMapper().readTree(trace.toFile());
        assertTrue(root.isObject(), "trace is a JSON object");
        JsonNode events = root.get("traceEvents");
        assertTrue(events != null && events.isArray(), "traceEvents array");
        Map<String, Long> lastEnd = new HashMap<>();
        Map<String, Long> lastTs = new HashMap<>();
        Set<String> namedThreads = new HashSet<>();
        Map<Long, Integer> flowBalance = new HashMap<>();
        int complete = 0;
        int starts = 0;
        int counters = 0;
        for (JsonNode e : events) {
            String ph = e.path("ph").asText();
            String name = e.path("name").asText();
            assertFalse(name.isEmpty(), "event without a name: " + e);
            String thread = e.path("pid").asInt() + "/" + e.path("tid").asInt();
            switch (ph) {
                case "M" -> {
                    if (name.equals("thread_name")) {
                        assertFalse(e.path("args").path("name").asText().isEmpty(), "thread name: " + e);
                        namedThreads.add(thread);
                    }
                }
                case "X" -> {
                    complete++;
                    long ts = ns(e.get("ts"));
                    long dur = ns(e.get("dur"));
                    assertTrue(ts >= 0 && dur >= 0, "negative time: " + e);
                    assertTrue(namedThreads.contains(thread), "X event on an unnamed thread: " + e);
                    long prevEnd = lastEnd.getOrDefault(thread, 0L);
                    assertTrue(ts >= prevEnd, "overlap or disorder on thread " + thread + " at " + e);
                    lastEnd.put(thread, ts + dur);
                    sorted(lastTs, thread, ts, e);
                }
                case "s", "f" -> {
                    long ts = ns(e.get("ts"));
                    assertTrue(ts >= 0, "negative time: " + e);
                    sorted(lastTs, thread, ts, e);
                    long id = e.get("id").asLong();
                    if (ph.equals("s")) {
                        starts++;
                        flowBalance.merge(id, 1, Integer::sum);
                    } else {
                        assertEquals("e", e.path("bp").asText(), "flow finish binds to the enclosing slice");
                        flowBalance.merge(id, -1, Integer::sum);
                    }
                }
                case "C" -> {
                    long ts = ns(e.get("ts"));
                    assertTrue(ts >= 0, "negative time: " + e);
                    sorted(lastTs, thread + "/" + name, ts, e);
                    counters++;
                }
                default -> fail("unexpected phase " + ph + " in " + e);
            }
        }
        flowBalance.forEach((id, balance) -> assertEquals(0, balance, "flow " + id + " start/finish mismatch"));
        return new Counts(complete, starts, namedThreads.size(), counters);
    }

    private static void sorted(Map<String, Long> lastTs, String thread, long ts, JsonNode e) {
        long prev = lastTs.getOrDefault(thread, 0L);
        assertTrue(ts >= prev, "timestamps not sorted on " + thread + " at " + e);
        lastTs.put(thread, ts);
    }

    /** Microseconds with three decimals to exact nanoseconds. */
    private static long ns(JsonNode micros) {
        BigDecimal d = micros.decimalValue();
        return d.movePointRight(3).longValueExact();
    }
}
