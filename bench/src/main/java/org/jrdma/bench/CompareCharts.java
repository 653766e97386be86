package org.jrdma.bench;

import java.awt.BasicStroke;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * compare-report's charts (JFreeChart, PNG): per test, the median over the rounds of every tool's
 * figure by message size on a logarithmic axis — p50 (solid) and p99 (dashed) latency, or
 * bandwidth. One line per tool: perftest, perftest -e, java-busy, java-adaptive, java-event, native.
 */
final class CompareCharts {
    private static final List<String> COLUMNS = List.of("perftest", "perftest-e", "java-busy", "java-adaptive", "java-event",
            "native");

    private CompareCharts() {
    }

    /** Draws a chart per test that has figures; returns the files written. */
    static List<Path> draw(List<Map<String, Map<String, Double>>> rounds, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true"); // no display needed
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (String test : BenchOptions.ALL_TESTS) {
            List<Integer> sizes = CompareReport.sizes(rounds, test);
            if (sizes.isEmpty()) {
                continue;
            }
            boolean latency = test.endsWith("_lat");
            XYSeriesCollection data = new XYSeriesCollection();
            List<Boolean> dashed = new ArrayList<>();
            for (String column : COLUMNS) {
                for (String figure : latency ? List.of(column, column + CompareReport.P99) : List.of(column)) {
                    XYSeries series = new XYSeries(figure.endsWith(CompareReport.P99) ? figure : latency ? column + " p50" : column);
                    for (int size : sizes) {
                        Double value = CompareReport.median(rounds, test + " " + size, figure, null);
                        if (value != null) {
                            series.add(size, value);
                        }
                    }
                    if (series.getItemCount() > 0) {
                        data.addSeries(series);
                        dashed.add(figure.endsWith(CompareReport.P99));
                    }
                }
            }
            LogAxis bytes = new LogAxis("message size [bytes]");
            bytes.setBase(2);
            bytes.setSmallestValue(1);
            NumberAxis value = new NumberAxis(latency ? (test.equals("read_lat") ? "round trip" : "one-way") + " latency [us]"
                    : "bandwidth [MiB/s]");
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < dashed.size(); i++) {
                if (dashed.get(i)) {
                    renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                            new float[] {6f, 4f}, 0f));
                }
            }
            JFreeChart chart = new JFreeChart(test + " (medians over " + rounds.size() + " rounds)", JFreeChart.DEFAULT_TITLE_FONT,
                    new XYPlot(data, bytes, value, renderer), true);
            Path file = dir.resolve(test + ".png");
            ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 600);
            written.add(file);
        }
        return written;
    }
}
