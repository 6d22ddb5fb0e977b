package org.clustersim.study.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

class ProgressTest {
    @Test
    void aTerminalGetsOneBarRedrawnInPlace() {
        StringWriter text = new StringWriter();
        Progress p = new Progress(new PrintWriter(text), 4, true);
        for (int i = 0; i < 4; i++) {
            p.done();
        }
        p.finish();
        String out = text.toString();
        assertEquals(4, out.chars().filter(c -> c == '\r').count(), out);
        assertTrue(out.contains("[###############...............] 2/4"), out);
        assertTrue(out.contains("] 4/4") && out.contains("ETA 0s"), out);
        assertEquals(1, out.chars().filter(c -> c == '\n').count(), "one line, ended when the sweep is done");
    }

    @Test
    void aLogGetsAPlainLineAtEveryTenth() {
        StringWriter text = new StringWriter();
        Progress p = new Progress(new PrintWriter(text), 100, false);
        for (int i = 0; i < 100; i++) {
            p.done();
        }
        p.finish();
        String out = text.toString();
        // the first completion, then one line per tenth
        assertEquals(11, out.lines().count(), out);
        assertTrue(out.lines().allMatch(l -> l.startsWith("whatif: ") && l.contains("variants done")), out);
        assertTrue(out.contains("100 of 100 variants done"), out);
    }
}
