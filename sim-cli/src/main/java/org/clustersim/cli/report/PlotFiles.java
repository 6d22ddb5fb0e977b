package org.clustersim.cli.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.imageio.ImageIO;

import org.clustersim.cli.output.AtomicOutput;

/**
 * The charts of a report as static files for papers and slides: {@code ID.svg} (the same SVG
 * the HTML page embeds) and {@code ID.png} (painted by Java2D at twice the size, headless).
 */
public final class PlotFiles {
    private PlotFiles() {
    }

    /** Per file under {@code dir}, what to write: give them to the atomic writer with the other outputs. */
    public static Map<Path, AtomicOutput.Content> of(Report report, Path dir) {
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        for (Chart c : report.charts()) {
            files.put(dir.resolve(c.id() + ".svg"), out -> out.write(c.svg().getBytes(StandardCharsets.UTF_8)));
            files.put(dir.resolve(c.id() + ".png"), out -> png(c, out));
        }
        return files;
    }

    /** Paints the chart at twice its size and writes it as PNG. */
    public static void png(Chart c, java.io.OutputStream out) throws IOException {
        RasterCanvas canvas = new RasterCanvas(c.width(), c.height(), 2);
        c.draw(canvas);
        if (!ImageIO.write(canvas.image(), "png", out)) {
            throw new IOException("no PNG writer in this Java runtime");
        }
    }
}
