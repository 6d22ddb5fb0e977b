package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.clustersim.cli.output.StepRun;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.junit.jupiter.api.Test;

/** {@link JsonOutput} writes the bytes Jackson's data binding writes, without it. */
class JsonOutputTest {
    /** Data binding writes an enum's name, not its {@code toString()}. */
    enum Kind {
        RING, TREE;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    record Leaf(String name, int count, long bytes, double share, boolean flag, Kind kind) {
    }

    record Tree(String title, @JsonInclude(JsonInclude.Include.NON_NULL) String optional, String plainNull,
                List<Leaf> leaves, Map<String, Object> extra, List<Object> mixed, int[] raw,
                Map<Integer, String> byNumber, List<String> empty) {
    }

    private static String ours(Object value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonOutput.write(value, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String jackson(Object value) throws IOException {
        return new String(OutputFiles.mapper().writeValueAsBytes(value), StandardCharsets.UTF_8);
    }

    private static Tree tree(String optional) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("nested", Map.of("k", List.of(1, 2L, 0.1)));
        extra.put("nothing", null);
        extra.put("quote\"and\\slash", "tab\there, é, \u2603, \u0001");
        extra.put("leaf", new Leaf("x", -3, Long.MAX_VALUE, 1e-300, false, Kind.TREE));
        List<Object> mixed = new ArrayList<>();
        mixed.add(null);
        mixed.add(Kind.RING);
        mixed.add(List.of());
        mixed.add(Map.of());
        mixed.add(3.0);
        mixed.add(-0.0);
        mixed.add(123456789.123456789);
        return new Tree("step", optional, null,
                List.of(new Leaf("a", 1, 2, 0.5, true, Kind.RING), new Leaf("b", 0, 0, 1.0 / 3, false, Kind.TREE)),
                extra, mixed, new int[] {4, 5}, Map.of(7, "seven"), List.of());
    }

    @Test
    void recordsListsMapsAndScalarsMatchDataBinding() throws IOException {
        for (String optional : new String[] {null, "given"}) {
            Tree t = tree(optional);
            String ours = ours(t);
            assertEquals(jackson(t), ours);
            assertEquals(optional != null, ours.contains("\"optional\""), "NON_NULL component left out only when null");
            assertTrue(ours.contains("\"plainNull\" : null"), ours);
        }
    }

    @Test
    void aBundledScenariosSummaryMatchesDataBinding() throws IOException {
        Scenario s = new ScenarioReader().read(Path.of("..", "scenarios", "mixtral-8x7b-64xh100-tp2-pp4-ep8.yaml"));
        Object summary = StepRun.of(s, false).summary();
        String ours = ours(summary);
        assertEquals(jackson(summary), ours);
        assertTrue(ours.contains("\"allToAll\""), "the MoE summary carries its all-to-all groups");
    }

    @Test
    void aNumberThatIsNotFiniteFailsNamingWhere() {
        List<Leaf> leaves = List.of(new Leaf("a", 1, 1, 0.5, true, Kind.RING), new Leaf("b", 1, 1, Double.NaN, true, Kind.RING));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ours(Map.of("rows", leaves)));
        assertTrue(e.getMessage().contains("NaN at /rows/1/share"), e.getMessage());
        IllegalStateException inf = assertThrows(IllegalStateException.class,
                () -> ours(List.of(Double.POSITIVE_INFINITY)));
        assertTrue(inf.getMessage().contains("Infinity at /0"), inf.getMessage());
    }

    @Test
    void leavesTheStreamOpen() throws IOException {
        boolean[] closed = {false};
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        JsonOutput.write(List.of(1), out);
        assertFalse(closed[0]);
        assertEquals("[ 1 ]", out.toString(StandardCharsets.UTF_8));
    }

    /**
     * JDK 17's {@code Double.toString} writes 1.41091531099471872E17 (a GPT-3 step's model FLOPs)
     * with a 17th digit that JDK 19 and newer leave out: the summary's bytes must not depend on
     * the JDK the launcher picks, so both writers give the shortest form on every JDK.
     */
    @Test
    void doublesAreWrittenInTheirShortestFormOnEveryJdk() throws IOException {
        double flops = 1.41091531099471872E17;
        Map<String, Object> value = Map.of("flops", flops);
        assertEquals("{\n  \"flops\" : 1.4109153109947187E17\n}", ours(value).strip());
        assertEquals(ours(value), jackson(value));
        assertEquals(flops, Double.parseDouble("1.4109153109947187E17"), "the short form reads back as the same double");
    }
}
