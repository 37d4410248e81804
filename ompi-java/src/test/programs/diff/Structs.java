package diff;

import java.nio.ByteBuffer;
import mpi.DoubleComplex;
import mpi.FloatComplex;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Struct;

/** User structs and their datatypes, nested structs, pack/unpack, complex accessors, status setters. */
final class Structs {
    private Structs() {}

    /** A particle: an id byte, three coordinates, a mass and two flags, packed as Open MPI lays them out. */
    static final class Particle extends Struct {
        final int id = addByte();
        final int pos = addDouble(3);
        final int mass = addFloat();
        final int flags = addShort(2);

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            byte id() {
                return getByte(id);
            }

            void id(byte v) {
                putByte(id, v);
            }

            double pos(int i) {
                return getDouble(pos, i);
            }

            void pos(int i, double v) {
                putDouble(pos, i, v);
            }

            float mass() {
                return getFloat(mass);
            }

            void mass(float v) {
                putFloat(mass, v);
            }

            short flag(int i) {
                return getShort(flags, i);
            }

            void flag(int i, short v) {
                putShort(flags, i, v);
            }
        }
    }

    /** A struct holding two particles and a count, with an explicit offset. */
    static final class Pair extends Struct {
        final Particle particle = new Particle();
        final int count = addInt();
        final int both;
        final int tail;

        Pair() {
            try {
                both = addStruct(particle, 2);
            } catch (mpi.MPIException e) {
                throw new IllegalStateException(e);
            }
            setOffset(200);
            tail = addLong();
        }

        @Override
        protected Data newData() {
            return new Data();
        }

        final class Data extends Struct.Data {
            Particle.Data particle(int i) {
                return getData(particle, both, i);
            }

            int count() {
                return getInt(count);
            }

            void count(int v) {
                putInt(count, v);
            }

            long tail() {
                return getLong(tail);
            }

            void tail(long v) {
                putLong(tail, v);
            }
        }
    }

    static void run() throws Exception {
        Intracomm w = MPI.COMM_WORLD;
        int rank = w.getRank();
        int n = w.getSize();
        int next = (rank + 1) % n;
        int prev = (rank + n - 1) % n;

        Out.section("structs");
        Particle p = new Particle();
        Out.p("particle offsets " + p.id + " " + p.pos + " " + p.mass + " " + p.flags + " extent " + p.getExtent()
                + " type size " + p.getType().getSize() + " extent " + p.getType().getExtent());
        Pair pair = new Pair();
        Out.p("pair offsets " + pair.count + " " + pair.both + " " + pair.tail + " extent " + pair.getExtent()
                + " type size " + pair.getType().getSize());
        ByteBuffer out = MPI.newByteBuffer(3 * p.getExtent());
        for (int i = 0; i < 3; i++) {
            Particle.Data d = p.getData(out, i);
            d.id((byte) (rank * 3 + i));
            for (int j = 0; j < 3; j++) {
                d.pos(j, rank + i * 0.5 + j);
            }
            d.mass(rank * 2.5f);
            d.flag(0, (short) i);
            d.flag(1, (short) -rank);
        }
        ByteBuffer in = MPI.newByteBuffer(3 * p.getExtent());
        w.sendRecv(out, 3, p.getType(), next, 1, in, 3, p.getType(), prev, 1);
        for (int i = 0; i < 3; i++) {
            Particle.Data d = p.getData(in, i);
            Out.p("particle " + i + " id " + d.id() + " pos " + d.pos(0) + "," + d.pos(1) + "," + d.pos(2) + " mass "
                    + d.mass() + " flags " + d.flag(0) + "," + d.flag(1));
        }
        byte[] arr = new byte[2 * pair.getExtent()];
        Pair.Data pd = pair.getData(arr, 1);
        pd.count(rank + 7);
        pd.tail(-rank);
        pd.particle(1).mass(3.5f);
        pd.particle(0).id((byte) 9);
        byte[] arrIn = new byte[2 * pair.getExtent()];
        w.sendRecv(arr, 2, pair.getType(), next, 2, arrIn, 2, pair.getType(), prev, 2);
        Pair.Data pin = pair.getData(arrIn, 1);
        Out.p("pair count " + pin.count() + " tail " + pin.tail() + " mass " + pin.particle(1).mass() + " id "
                + pin.particle(0).id() + " buffer capacity " + pin.getBuffer().capacity());
        int[] sums = new int[1];
        w.allReduce(new int[] {p.getExtent()}, sums, 1, MPI.INT, MPI.SUM);
        Out.p("allReduce of extents " + sums[0]);

        Out.section("complex accessors");
        double[] dd = {1, 2, 3, 4};
        DoubleComplex dc = DoubleComplex.get(dd, 1);
        dc.putReal(dc.getReal() * 10);
        dc.putImag(-1);
        Out.p("double complex " + Out.str(dd) + " " + dc.getReal() + " " + dc.getImag() + " "
                + dc.getBuffer().capacity());
        ByteBuffer fb = MPI.newByteBuffer(16);
        FloatComplex fc = FloatComplex.get(fb, 1);
        fc.putReal(1.5f);
        fc.putImag(2.5f);
        FloatComplex f0 = FloatComplex.get(fb);
        f0.putReal(-1);
        Out.p("float complex " + Out.str(fb.asFloatBuffer()) + " " + FloatComplex.get(new float[] {7, 8}).getImag()
                + " " + DoubleComplex.get(MPI.newDoubleBuffer(4), 1).getReal() + " "
                + FloatComplex.get(MPI.newFloatBuffer(2)).getReal() + " "
                + DoubleComplex.get(MPI.newByteBuffer(32), 1).getImag());

        Out.section("pack unpack");
        int size = w.packSize(3, MPI.INT) + w.packSize(2, MPI.DOUBLE);
        Out.p("packSize at least 40 " + (size >= 40));
        byte[] packed = new byte[size];
        int pos = w.pack(new int[] {rank, 2, 3}, 3, MPI.INT, packed, 0);
        pos = w.pack(new double[] {rank * 0.5, 9}, 2, MPI.DOUBLE, packed, pos);
        Out.p("packed bytes " + pos);
        byte[] recv = new byte[size];
        w.sendRecv(packed, pos, MPI.PACKED, next, 3, recv, size, MPI.PACKED, prev, 3);
        int[] ints = new int[3];
        double[] dbl = new double[2];
        int at = w.unpack(recv, 0, ints, 3, MPI.INT);
        at = w.unpack(recv, at, dbl, 2, MPI.DOUBLE);
        Out.p("unpacked " + Out.str(ints) + " " + Out.str(dbl) + " position " + at);

        Out.section("status setters");
        mpi.Status st = w.sendRecv(new int[] {1, 2}, 2, MPI.INT, rank, 4, new int[2], 2, MPI.INT, rank, 4);
        st.setElements(MPI.INT, 5);
        st.setCancelled(true);
        // (getElementsX and setElementsX crash the JVM in Open MPI's binding, SIGSEGV in jni_NewObject: Extras)
        Out.p("set elements " + st.getElements(MPI.INT) + " count " + st.getCount(MPI.INT) + " cancelled "
                + st.isCancelled());
        w.barrier();
    }
}
