import type { enWaysIn } from "./en-ways-in.ts";

/** The Vietnamese sentences of the ways in besides an upload (see `en-ways-in.ts`). */
export const viWaysIn: { readonly [K in keyof typeof enWaysIn]: string } = {
  "shortcut.no_recording":
    "Tin nhắn đó không có bản ghi âm nào. Hãy dùng Make meeting notes trên một tin nhắn có tệp âm thanh hoặc video, hoặc gõ /meeting-notes.",
  "shortcut.not_in_channel":
    "Tôi chưa ở trong kênh này nên không đọc được bản ghi âm đó. Hãy mời tôi vào (/invite @Meeting Notes) rồi thử lại.",
  "new_notes.message_recording_label": "Bản ghi âm trong tin nhắn",
  "new_notes.destination_thread_hint":
    "Giữ nguyên kênh này thì biên bản sẽ được đăng trong luồng của tin nhắn đó.",
  "mention.pending":
    "Biên bản sẽ bắt đầu trong luồng này ngay khi bộ lưu trữ của tôi hoạt động trở lại.",
  "mention.history_busy":
    "Trong một phút nữa tôi mới xem được tin nhắn đầu tiên của luồng này (Slack chỉ cho tôi đọc lịch sử tin nhắn ít lần): hãy nhắc đến tôi lại sau một phút, hoặc dùng Make meeting notes trên tin nhắn có bản ghi âm.",
  "new_notes.recent_busy":
    "Trong một phút nữa mới liệt kê được các bản ghi âm gần đây (Slack chỉ cho tôi đọc lịch sử tin nhắn ít lần): hãy tải bản ghi âm lên tại đây, hoặc thử lại sau một phút.",
  "usage.intro": "Đây là cách nhận biên bản cuộc họp từ tôi:",
  "usage.upload":
    "Tải một bản ghi âm lên kênh có tôi (nơi bật tự động tạo biên bản), hoặc gửi cho tôi trong tin nhắn trực tiếp.",
  "usage.mention":
    "Nhắc đến tôi (@Meeting Notes) trong luồng của một bản ghi âm, hoặc trong tin nhắn bạn tải bản ghi âm lên.",
  "usage.shortcut":
    "Trên một tin nhắn có bản ghi âm, chọn Make meeting notes trong menu của tin nhắn (Thêm thao tác).",
  "usage.command": "Gõ /meeting-notes để chọn bản ghi âm và nơi đăng biên bản.",
};
