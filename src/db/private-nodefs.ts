import { NodeFS } from '@electric-sql/pglite/nodefs';

type Attributes = { mode?: number | null };

/** The part of Emscripten's NODEFS (PGlite's file layer on Node) that creates files and sets their modes. */
interface NodeFsLayer {
  node_ops: {
    mknod(parent: unknown, name: string, mode: number, dev: number): unknown;
    setattr(node: unknown, attributes: Attributes): void;
  };
  stream_ops: { setattr(stream: unknown, attributes: Attributes): void };
}

/** Group and others lose every bit: owner-only, whatever mode Postgres or PGlite asked for. */
const ownerOnly = (mode: number) => mode & ~0o077;
const ownerOnlyAttributes = (attributes: Attributes): Attributes =>
  attributes.mode == null ? attributes : { ...attributes, mode: ownerOnly(attributes.mode) };

/**
 * PGlite's Node filesystem, writing owner-only files and folders (SPEC §7: data at rest is the user's
 * alone). PGlite does not create its files through the process umask alone: it sets their modes
 * explicitly (0666, through NODEFS's setattr, which chmods), so the umask cannot keep them private.
 * This masks every mode it creates or sets, before Postgres writes anything: new WAL segments, relation
 * files and caches included.
 */
export class PrivateNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const preRun = [
      ...((emscriptenOpts.preRun as ((mod: { NODEFS: NodeFsLayer }) => void)[] | undefined) ?? []),
      (mod: { NODEFS: NodeFsLayer }) => keepOwnerOnly(mod.NODEFS),
    ];
    return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts };
  }
}

function keepOwnerOnly(layer: NodeFsLayer): void {
  const nodeOps = layer.node_ops;
  const streamOps = layer.stream_ops;
  const { mknod, setattr } = nodeOps;
  const setStreamAttributes = streamOps.setattr;
  nodeOps.mknod = (parent, name, mode, dev) => mknod.call(nodeOps, parent, name, ownerOnly(mode), dev);
  nodeOps.setattr = (node, attributes) => setattr.call(nodeOps, node, ownerOnlyAttributes(attributes));
  streamOps.setattr = (stream, attributes) =>
    setStreamAttributes.call(streamOps, stream, ownerOnlyAttributes(attributes));
}
