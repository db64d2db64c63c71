// What @jupyterlab/services' kernel connection takes from the package's index
// (build.mjs points its `require("..")` here): the index would bring
// the contents, sessions, terminals and settings clients, which a dashboard never uses.
export { ServerConnection } from "@jupyterlab/services/lib/serverconnection";
export { CommsOverSubshells } from "@jupyterlab/services/lib/kernel/comm";
