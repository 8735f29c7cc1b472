/* ckptnet size: the cheapest fabric that meets a checkpoint target
 * (docs/size.md). */
#ifndef CKPT_CLI_SIZE_H
#define CKPT_CLI_SIZE_H

int cmd_size(int argc, char **argv);

#endif
