import type { enWorkflow } from "./en-workflow.ts";

/** The Vietnamese sentences of the Workflow Builder step (see `en-workflow.ts`). */
export const viWorkflow: { readonly [K in keyof typeof enWorkflow]: string } = {
  "step.inputs":
    "Bước này cần một tệp bản ghi âm, một kênh để đăng biên bản và người đã dùng quy trình.",
  "step.recording_unreadable":
    "Tôi không mở được bản ghi âm đó: nó đã bị xóa, hoặc chưa được chia sẻ ở nơi nào có tôi, nên hãy chia sẻ nó trong một kênh có tôi rồi chạy lại quy trình.",
  "step.not_a_recording": "{file} không phải bản ghi âm tôi dùng được: bước này nhận {formats}.",
  "step.recording_not_theirs":
    "Bản ghi âm phải do người dùng quy trình này tải lên, hoặc được chia sẻ trong một cuộc trò chuyện có họ.",
  "step.bot_not_in":
    "Tôi chưa ở trong kênh để đăng biên bản: hãy mời tôi vào (/invite @Meeting Notes), hoặc chọn kênh khác trong bước này.",
  "step.user_not_in":
    "Người dùng quy trình này không ở trong kênh để đăng biên bản, nên họ không thể đặt tên người nói ở đó.",
  "step.channel_unknown":
    "Tôi không kiểm tra được kênh để đăng biên bản; hãy chạy lại quy trình sau giây lát.",
  "step.thread_failed": "Tôi không đăng được vào kênh để đăng biên bản.",
  "step.already": "Biên bản cho bản ghi âm này đang được tạo trong kênh đó.",
  "step.store_unavailable":
    "Bộ lưu trữ của tôi đang không hoạt động nên chưa tạo biên bản nào; hãy chạy lại quy trình sau.",
  "step.no_link":
    "Biên bản đang được tạo trong kênh bạn chọn, nhưng Slack không cho tôi liên kết đến luồng của nó.",
};
