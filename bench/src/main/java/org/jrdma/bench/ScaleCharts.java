package org.jrdma.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * scale's charts (JFreeChart, PNG): memory (open, after streaming, after the close), set-up rate,
 * throughput and CPU per message against the number of channels (a logarithmic axis), one line per
 * run — this one and those named with {@code --compare} — in the colours compare-report uses.
 */
final class ScaleCharts {
    private record Figure(String file, String title, String axis, ToDoubleFunction<ScaleCommand.Row> value,
                          ToDoubleFunction<ScaleCommand.Row> second, String secondName) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("memory.png", "resident memory per channel pair", "KiB per pair (open; dashed: after streaming)",
                    r -> r.bytesPerChannelPair() / 1024.0, r -> r.bytesPerChannelPairStreamed() / 1024.0,
                    "after streaming"),
            new Figure("closed.png", "resident memory left after the channels closed", "MiB more than before the burst",
                    r -> (r.rssClosed() - r.rssBefore()) / 1048576.0, null, null),
            new Figure("setup.png", "channels set up per second", "channels/s", ScaleCommand.Row::setupPerSecond, null,
                    null),
            new Figure("throughput.png", "aggregate throughput while every channel streams", "Gbit/s",
                    ScaleCommand.Row::gbitPerSecond, null, null),
            new Figure("cpu.png", "process CPU per message while every channel streams", "CPU us per message",
                    ScaleCommand.Row::cpuMicrosPerMessage, null, null));

    private ScaleCharts() {
    }

    /** Draws the five charts of the runs (label -> rows) into dir; returns the files written. */
    static List<Path> draw(Map<String, List<ScaleCommand.Row>> runs, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true"); // no display needed
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        int most = runs.values().stream().flatMap(List::stream).mapToInt(ScaleCommand.Row::channels).max().orElse(1);
        for (Figure figure : FIGURES) {
            XYSeriesCollection data = new XYSeriesCollection();
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            int run = 0;
            for (Map.Entry<String, List<ScaleCommand.Row>> e : runs.entrySet()) {
                Color colour = CompareCharts.PALETTE[run++ % CompareCharts.PALETTE.length];
                add(data, renderer, e.getKey(), e.getValue(), figure.value(), colour, false);
                if (figure.second() != null) {
                    add(data, renderer, e.getKey() + ", " + figure.secondName(), e.getValue(), figure.second(), colour,
                            true);
                }
            }
            LogAxis channels = new LogAxis("channels");
            channels.setBase(2);
            channels.setSmallestValue(1);
            channels.setRange(0.5, most * 2.0);
            channels.setTickUnit(new NumberTickUnit(Math.log(most * 4.0) / Math.log(2) > 12 ? 2 : 1));
            channels.setNumberFormatOverride(new DecimalFormat("#,##0"));
            // Figures over more than a decade (the first burst pays the JVM's warm-up) on a log axis.
            ValueAxis value = new NumberAxis(figure.axis());
            if (CompareCharts.span(data) > 10) {
                LogAxis log = new LogAxis(figure.axis());
                log.setBase(10);
                log.setTickUnit(new NumberTickUnit(1));
                log.setMinorTickCount(9);
                log.setMinorTickMarksVisible(true);
                log.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
                value = log;
            }
            XYPlot plot = new XYPlot(data, channels, value, renderer);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            JFreeChart chart = new JFreeChart(figure.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, true);
            chart.setBackgroundPaint(Color.WHITE);
            Path file = dir.resolve(figure.file());
            ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 600);
            written.add(file);
        }
        return written;
    }

    private static void add(XYSeriesCollection data, XYLineAndShapeRenderer renderer, String name,
                            List<ScaleCommand.Row> rows, ToDoubleFunction<ScaleCommand.Row> value, Color colour,
                            boolean dashed) {
        XYSeries series = new XYSeries(name, true, true); // repeated counts: every burst is a point
        for (ScaleCommand.Row row : rows) {
            double y = value.applyAsDouble(row);
            if (Double.isFinite(y)) {
                series.add(row.channels(), y);
            }
        }
        int index = data.getSeriesCount();
        data.addSeries(series);
        renderer.setSeriesPaint(index, colour);
        if (dashed) {
            renderer.setSeriesStroke(index, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[] {6f, 4f}, 0f));
        }
    }
}
