package ombdriver;

import java.lang.reflect.Method;
import mpi.MPI;

/**
 * Runs every OSU Micro-Benchmark for Java (unchanged, compiled against the drop-in) in one MPI job: each
 * benchmark's own {@code runBenchmark()} with validation ({@code -c}), on direct buffers and on arrays, between one
 * {@code MPI.Init} and one {@code MPI.Finalize} (each benchmark's {@code main} is only those two calls around it).
 * Arguments: the APIs to run ({@code buffer}, {@code arrays} or {@code buffer,arrays}), then the benchmark options
 * (e.g. {@code -m 1:8192 -i 10 -x 2}).
 */
public final class OmbAll {
    private OmbAll() {}

    static final String[] BENCHMARKS = {"pt2pt.OSULatency", "pt2pt.OSUBandwidth", "pt2pt.OSUBiBandwidth",
        "pt2pt.OSUBandwidthOMPI", "pt2pt.OSUBiBandwidthOMPI", "collective.OSUAllReduce", "collective.OSUAllgather",
        "collective.OSUAllgatherv", "collective.OSUAlltoall", "collective.OSUAlltoallv", "collective.OSUBarrier",
        "collective.OSUBcast", "collective.OSUGather", "collective.OSUGatherv", "collective.OSUReduce",
        "collective.OSUReduceScatter", "collective.OSUScatter", "collective.OSUScatterv"};

    public static void main(String[] argv) throws Exception {
        MPI.Init(argv);
        String[] apis = argv[0].split(",");
        String[] options = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        int rank = MPI.COMM_WORLD.getRank();
        for (String name : BENCHMARKS) {
            for (String api : apis) {
                if (name.endsWith("OMPI") && api.equals("arrays")) {
                    continue; // these two exit on purpose with arrays: Open MPI's binding has no arrays in iSend
                }
                String[] args = new String[options.length + 3];
                args[0] = "-c";
                args[1] = "-a";
                args[2] = api;
                System.arraycopy(options, 0, args, 3, options.length);
                Class<?> c = Class.forName("mpi." + name);
                Object bench = c.getConstructor(String[].class).newInstance((Object) args);
                Method run = c.getMethod("runBenchmark");
                MPI.COMM_WORLD.barrier();
                run.invoke(bench);
                MPI.COMM_WORLD.barrier();
                if (rank == 0) {
                    System.out.println("BENCHMARK " + name + " " + api + " done");
                }
            }
        }
        MPI.Finalize();
    }
}
