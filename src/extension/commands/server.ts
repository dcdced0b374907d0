// Restart server and Show output.
import type { Ctx } from '../ctx';

export const restartServer = (ctx: Ctx) => async () => {
  ctx.output.info('restarting the language server');
  await ctx.restart();
};

export const showOutput = (ctx: Ctx) => () => ctx.output.show(true);
