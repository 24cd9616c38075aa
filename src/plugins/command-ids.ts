/** The `figure-chat:*` command ids, shared by the plugins that register and call them. */
export const CommandIDs = {
  open: 'figure-chat:open',
  newConversation: 'figure-chat:new-conversation',
  export: 'figure-chat:export-markdown',
  stop: 'figure-chat:stop',
  attachOutput: 'figure-chat:attach-output',
  attachFile: 'figure-chat:attach-file'
} as const;
